import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Where the user writes. Enter sends, Shift+Enter starts a new line; while a reply is written the
// button stops it.
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

    padding: 10
    background: Rectangle { color: composer.theme.window }

    RowLayout {
        anchors.fill: parent
        spacing: 8
        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(160, Math.max(44, input.implicitHeight))
            TextArea {
                id: input
                objectName: "composerInput"
                placeholderText: !composer.canSend ? qsTr("Open a model to start chatting")
                                 : composer.completion ? qsTr("Text for the model to continue (Enter to send, Shift+Enter for a new line)")
                                 : qsTr("Message Trit (Enter to send, Shift+Enter for a new line)")
                wrapMode: TextEdit.Wrap
                font.pointSize: composer.theme.fontSize
                color: composer.theme.text
                Accessible.role: Accessible.EditableText
                Accessible.name: qsTr("Message")
                KeyNavigation.tab: sendButton
                background: Rectangle {
                    radius: 8
                    color: composer.theme.surface
                    border.color: input.activeFocus ? composer.theme.accent : composer.theme.border
                }
                Keys.onPressed: (event) => {
                    if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                            && !(event.modifiers & Qt.ShiftModifier)) {
                        composer.submit()
                        event.accepted = true
                    }
                }
            }
        }
        Button {
            id: sendButton
            objectName: composer.busy ? "stopButton" : "sendButton"
            text: composer.busy ? qsTr("Stop") : qsTr("Send")
            enabled: composer.busy || (composer.canSend && input.text.trim().length > 0)
            highlighted: true
            Accessible.name: composer.busy ? qsTr("Stop the reply") : qsTr("Send the message")
            onClicked: composer.busy ? composer.stopRequested() : composer.submit()
        }
    }
}
