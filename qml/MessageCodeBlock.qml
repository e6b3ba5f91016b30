import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A fenced code block of a reply: monospace, selectable, never interpreted, with a copy button.
Rectangle {
    id: block
    property string code: ""
    property string language: ""
    property ChatTheme theme: ChatTheme {}
    signal copyRequested(string text)

    implicitHeight: column.implicitHeight + 12
    radius: 6
    color: theme.codeBackground
    border.color: theme.border

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 6
        spacing: 2
        RowLayout {
            Layout.fillWidth: true
            Label {
                text: block.language.length > 0 ? block.language : qsTr("code")
                color: block.theme.mutedText
                font.pointSize: block.theme.fontSize - 2
                Layout.fillWidth: true
            }
            ToolButton {
                objectName: "copyCodeButton"
                text: qsTr("Copy")
                font.pointSize: block.theme.fontSize - 2
                Accessible.name: qsTr("Copy code")
                onClicked: block.copyRequested(block.code)
            }
        }
        TextEdit {
            objectName: "codeText"
            Layout.fillWidth: true
            text: block.code
            textFormat: TextEdit.PlainText
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.WrapAnywhere
            color: block.theme.text
            selectionColor: block.theme.accent
            font.family: block.theme.monoFamily
            font.pointSize: block.theme.fontSize - 1
            Accessible.role: Accessible.EditableText
            Accessible.name: qsTr("Code")
        }
    }
}
