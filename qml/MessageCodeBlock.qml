import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Trit.Native

// A fenced code block of a reply: coloured by its language (CodeDocument, app/src/ui/code_document.h),
// monospace, selectable, never interpreted, with the language's name and a copy button that says
// "Copied" for a moment. While the block streams, only its new lines are coloured.
Rectangle {
    id: block
    property string code: ""
    property string language: ""
    property ChatTheme theme: ChatTheme {}
    readonly property alias copied: copiedTimer.running   // "Copied" is shown
    readonly property alias highlighter: codeDocument
    signal copyRequested(string text)

    implicitHeight: column.implicitHeight + 2 * theme.spaceS
    radius: theme.radiusM
    color: theme.codeBackground
    border.color: theme.border

    CodeDocument {
        id: codeDocument
        // (QQuickTextDocument has no QML type description in Qt 6.4, so qmllint cannot check this.)
        document: codeText.textDocument // qmllint disable
        text: block.code
        language: block.language
        colors: block.theme.codeColors
    }
    Timer { id: copiedTimer; interval: 1500 }

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: block.theme.spaceS
        anchors.leftMargin: block.theme.spaceM
        spacing: block.theme.spaceXs
        RowLayout {
            Layout.fillWidth: true
            Label {
                objectName: "codeLanguageLabel"
                text: codeDocument.languageLabel.length > 0 ? codeDocument.languageLabel
                      : block.language.length > 0 ? block.language : qsTr("code")
                color: block.theme.mutedText
                font.pointSize: block.theme.fontCaption
                font.weight: Font.DemiBold
                Layout.fillWidth: true
            }
            IconButton {
                objectName: "copyCodeButton"
                theme: block.theme
                iconName: block.copied ? "object-select" : "edit-copy"
                text: block.copied ? qsTr("Copied") : qsTr("Copy")
                font.pointSize: block.theme.fontCaption
                toolTipText: qsTr("Copy code")
                onClicked: {
                    block.copyRequested(block.code)
                    copiedTimer.restart()
                }
            }
        }
        TextEdit {
            id: codeText
            objectName: "codeText"
            Layout.fillWidth: true
            textFormat: TextEdit.PlainText   // the text comes from codeDocument, never as markup
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.WrapAnywhere
            color: block.theme.text
            selectionColor: block.theme.accent
            selectedTextColor: block.theme.accentText
            font.family: block.theme.monoFamily
            font.pointSize: block.theme.fontSmall
            Accessible.role: Accessible.EditableText
            Accessible.name: qsTr("Code")
        }
    }
}
