import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The conversation's system prompt, in a panel that opens under the header's button: a few lines to
// write in, what it is for, and Done. What was written is handed on when the panel closes (Done, Esc or
// a click outside), and only if it changed.
Popup {
    id: panel
    objectName: "systemPromptPanel"
    property ChatTheme theme: ChatTheme {}
    property string prompt: ""          // the conversation's current system prompt
    readonly property alias editor: area
    signal edited(string text)

    width: 440
    padding: theme.spaceL
    focus: true
    closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutside
    onAboutToShow: area.text = prompt
    onOpened: area.forceActiveFocus()
    onClosed: if (area.text !== prompt) edited(area.text)

    background: Rectangle {
        color: panel.theme.surface
        radius: panel.theme.radiusM
        border.color: panel.theme.border
    }
    enter: Transition {
        NumberAnimation { property: "opacity"; from: 0; to: 1; duration: panel.theme.durationFast }
    }

    contentItem: ColumnLayout {
        spacing: panel.theme.spaceS
        Label {
            text: qsTr("System prompt")
            font.pointSize: panel.theme.fontSubtitle
            font.weight: Font.DemiBold
            color: panel.theme.text
            Accessible.role: Accessible.Heading
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Instructions the model reads before this conversation. New chats start with the one in Settings.")
            color: panel.theme.mutedText
            font.pointSize: panel.theme.fontSmall
        }
        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: 140
            TextArea {
                id: area
                objectName: "systemPromptField"
                wrapMode: TextEdit.Wrap
                placeholderText: qsTr("For example: Answer briefly, in plain language.")
                placeholderTextColor: panel.theme.mutedText
                color: panel.theme.text
                font.pointSize: panel.theme.fontBody
                Accessible.name: qsTr("System prompt of this conversation")
                background: Rectangle {
                    radius: panel.theme.radiusS
                    color: panel.theme.window
                    border.width: area.activeFocus ? 2 : 1
                    border.color: area.activeFocus ? panel.theme.focusRing : panel.theme.border
                }
            }
        }
        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                text: qsTr("Applies from the next reply.")
                color: panel.theme.mutedText
                font.pointSize: panel.theme.fontCaption
            }
            IconButton {
                objectName: "systemPromptDone"
                theme: panel.theme
                filled: true
                iconName: "object-select"
                text: qsTr("Done")
                onClicked: panel.close()
            }
        }
    }
}
