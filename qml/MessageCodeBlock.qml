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

    implicitHeight: column.implicitHeight + 2 * theme.spaceS
    radius: theme.radiusM
    color: theme.codeBackground
    border.color: theme.border

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: theme.spaceS
        anchors.leftMargin: theme.spaceM
        spacing: theme.spaceXs
        RowLayout {
            Layout.fillWidth: true
            Label {
                text: block.language.length > 0 ? block.language : qsTr("code")
                color: block.theme.mutedText
                font.pointSize: block.theme.fontCaption
                Layout.fillWidth: true
            }
            IconButton {
                objectName: "copyCodeButton"
                theme: block.theme
                iconName: "edit-copy"
                text: qsTr("Copy")
                font.pointSize: block.theme.fontCaption
                toolTipText: qsTr("Copy code")
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
            font.pointSize: block.theme.fontSmall
            Accessible.role: Accessible.EditableText
            Accessible.name: qsTr("Code")
        }
    }
}
