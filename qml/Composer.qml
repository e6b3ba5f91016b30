import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Where the user writes: a raised card under the conversation, as wide as its reading column. Enter
// sends, Shift+Enter starts a new line; while a reply is written the button stops it.
Pane {
    id: composer
    property bool busy: false        // a reply is being written
    property bool canSend: true      // a model is ready
    property bool completion: false  // a base model: what is sent is continued, not answered
    property ChatTheme theme: ChatTheme {}
    property alias text: input.text
    signal sendRequested(string text)
    signal stopRequested()

    function focusInput() { input.forceActiveFocus() }
    function submit() {
        if (busy || !canSend || input.text.trim().length === 0)
            return false
        const t = input.text
        input.text = ""
        sendRequested(t)
        return true
    }

    padding: theme.spaceM
    topPadding: theme.spaceS
    background: Rectangle { color: composer.theme.window }

    Rectangle {
        id: card
        objectName: "composerCard"
        width: Math.min(parent.width, composer.theme.readingWidth)
        x: (parent.width - width) / 2
        implicitHeight: cardRow.implicitHeight + 2 * composer.theme.spaceS
        height: parent.height
        radius: composer.theme.radiusL
        color: composer.theme.surface
        border.width: input.activeFocus ? 2 : 1
        border.color: input.activeFocus ? composer.theme.focusRing : composer.theme.border
        Behavior on border.color { ColorAnimation { duration: composer.theme.durationFast } }

        RowLayout {
            id: cardRow
            anchors.fill: parent
            anchors.margins: composer.theme.spaceS
            anchors.leftMargin: composer.theme.spaceXs
            spacing: composer.theme.spaceS
            ScrollView {
                Layout.fillWidth: true
                Layout.preferredHeight: Math.min(160, Math.max(36, input.implicitHeight))
                TextArea {
                    id: input
                    objectName: "composerInput"
                    placeholderText: !composer.canSend ? qsTr("Open a model to start chatting")
                                     : composer.completion ? qsTr("Text for the model to continue (Enter to send, Shift+Enter for a new line)")
                                     : qsTr("Message Trit (Enter to send, Shift+Enter for a new line)")
                    wrapMode: TextEdit.Wrap
                    font.pointSize: composer.theme.fontBody
                    color: composer.theme.text
                    placeholderTextColor: composer.theme.mutedText
                    selectionColor: composer.theme.accent
                    selectedTextColor: composer.theme.accentText
                    Accessible.role: Accessible.EditableText
                    Accessible.name: qsTr("Message")
                    KeyNavigation.tab: sendButton
                    background: null  // the card is the frame
                    Keys.onPressed: (event) => {
                        if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                && !(event.modifiers & Qt.ShiftModifier)) {
                            composer.submit()
                            event.accepted = true
                        }
                    }
                }
            }
            IconButton {
                id: sendButton
                objectName: composer.busy ? "stopButton" : "sendButton"
                Layout.alignment: Qt.AlignBottom
                Layout.preferredWidth: 36
                Layout.preferredHeight: 36
                theme: composer.theme
                filled: true
                iconName: composer.busy ? "media-playback-stop" : "go-up"
                enabled: composer.busy || (composer.canSend && input.text.trim().length > 0)
                toolTipText: composer.busy ? qsTr("Stop the reply (Esc)") : qsTr("Send the message (Enter)")
                Accessible.name: composer.busy ? qsTr("Stop the reply") : qsTr("Send the message")
                onClicked: composer.busy ? composer.stopRequested() : composer.submit()
            }
        }
    }
}
