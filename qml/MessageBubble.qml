import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One message of the conversation. A user message is plain text and can be edited (the reply is then
// written again from that point); an assistant reply is a column of Markdown and code blocks that grows
// while it streams, then shows its statistics. A message with earlier versions (edits, regenerations)
// has a pager "< 2/3 >": choosing a version shows it and the conversation that followed it.
Item {
    id: bubble
    // The message (roles of MessageListModel).
    property int row: -1
    property string role: "user"
    property string text: ""
    property var segments: null
    property bool streaming: false
    property string finishReason: ""
    property string errorText: ""
    property var stats: ({})
    property var speedHistory: []
    property int variantIndex: 0         // 0-based version shown
    property int variantCount: 1         // how many versions there are
    // The view's state.
    property bool isLast: false
    property bool busy: false            // a reply is being written: no edits or regeneration
    property ChatTheme theme: ChatTheme {}
    property bool editing: false

    signal copyRequested(string text)
    signal editSubmitted(int row, string text)
    signal regenerateRequested()
    signal alternativeRequested(int row, int variantIndex)

    function showVariant(index) {
        if (index >= 0 && index < variantCount && index !== variantIndex && !busy)
            alternativeRequested(row, index)
    }

    readonly property bool isUser: role === "user"
    implicitHeight: frame.height + 16

    Accessible.role: Accessible.ListItem
    Accessible.name: (isUser ? qsTr("You said: %1") : qsTr("Trit replied: %1")).arg(text)

    Rectangle {
        id: frame
        readonly property real maxWidth: Math.max(120, bubble.width * (bubble.isUser ? 0.8 : 1.0) - 24)
        x: bubble.isUser ? bubble.width - width - 12 : 12
        y: 8
        width: bubble.isUser && !bubble.editing
               ? Math.min(maxWidth, Math.max(userText.implicitWidth, actions.implicitWidth) + 24)
               : maxWidth
        height: content.implicitHeight + 20
        radius: 10
        color: bubble.isUser ? bubble.theme.userBubble : bubble.theme.assistantBubble
        border.color: bubble.isUser ? "transparent" : bubble.theme.border

        ColumnLayout {
            id: content
            x: 12
            y: 10
            width: frame.width - 24
            spacing: 6

            // A user message, as typed.
            TextEdit {
                id: userText
                objectName: "userText"
                visible: bubble.isUser && !bubble.editing
                Layout.fillWidth: true
                text: bubble.isUser ? bubble.text : ""
                textFormat: TextEdit.PlainText
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.Wrap
                color: bubble.theme.text
                selectionColor: bubble.theme.accent
                font.pointSize: bubble.theme.fontSize
            }

            // Editing a user message.
            ColumnLayout {
                visible: bubble.editing
                Layout.fillWidth: true
                TextArea {
                    id: editArea
                    objectName: "editArea"
                    Layout.fillWidth: true
                    wrapMode: TextEdit.Wrap
                    font.pointSize: bubble.theme.fontSize
                    Accessible.name: qsTr("Edit your message")
                    Keys.onPressed: (event) => {
                        if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                && !(event.modifiers & Qt.ShiftModifier)) {
                            saveEdit.clicked()
                            event.accepted = true
                        } else if (event.key === Qt.Key_Escape) {
                            bubble.editing = false
                            event.accepted = true
                        }
                    }
                }
                RowLayout {
                    Button {
                        id: saveEdit
                        objectName: "saveEditButton"
                        text: qsTr("Save and send")
                        enabled: editArea.text.trim().length > 0
                        onClicked: {
                            bubble.editing = false
                            bubble.editSubmitted(bubble.row, editArea.text)
                        }
                    }
                    Button {
                        text: qsTr("Cancel")
                        onClicked: bubble.editing = false
                    }
                }
            }

            // An assistant reply: its blocks. Only the last block changes while it streams.
            Repeater {
                objectName: "segmentRepeater"
                model: bubble.isUser ? null : bubble.segments
                delegate: Item {
                    id: segment
                    required property string kind
                    required property string markdown
                    required property string source
                    required property string language
                    Layout.fillWidth: true
                    implicitHeight: loader.item ? loader.item.implicitHeight : 0
                    Loader {
                        id: loader
                        width: parent.width
                        sourceComponent: segment.kind === "code" ? codeComponent : proseComponent
                    }
                    Component {
                        id: proseComponent
                        MessageProse {
                            text: segment.markdown
                            theme: bubble.theme
                        }
                    }
                    Component {
                        id: codeComponent
                        MessageCodeBlock {
                            code: segment.source
                            language: segment.language
                            theme: bubble.theme
                            onCopyRequested: (code) => bubble.copyRequested(code)
                        }
                    }
                }
            }

            BusyIndicator {
                visible: bubble.streaming && bubble.text.length === 0
                running: visible
                Layout.preferredWidth: 28
                Layout.preferredHeight: 28
                Accessible.name: qsTr("Writing a reply")
            }

            Label {
                objectName: "errorLabel"
                visible: bubble.errorText.length > 0
                Layout.fillWidth: true
                text: bubble.errorText
                wrapMode: Text.Wrap
                color: bubble.theme.error
                font.pointSize: bubble.theme.fontSize - 1
            }

            MessageStats {
                visible: !bubble.isUser && !bubble.streaming && (summary.length > 0 || reasonText.length > 0)
                Layout.fillWidth: true
                stats: bubble.stats
                speedHistory: bubble.speedHistory
                finishReason: bubble.finishReason
                theme: bubble.theme
            }

            RowLayout {
                id: actions
                visible: !bubble.streaming && !bubble.editing
                spacing: 2
                // Versions of this message: earlier edits or regenerations are kept, not replaced.
                RowLayout {
                    objectName: "variantPager"
                    visible: bubble.variantCount > 1
                    spacing: 0
                    ToolButton {
                        objectName: "previousVariantButton"
                        text: "<"
                        enabled: !bubble.busy && bubble.variantIndex > 0
                        font.pointSize: bubble.theme.fontSize - 2
                        Accessible.name: qsTr("Show the previous version of this message")
                        onClicked: bubble.showVariant(bubble.variantIndex - 1)
                    }
                    Label {
                        objectName: "variantLabel"
                        text: qsTr("%1/%2").arg(bubble.variantIndex + 1).arg(bubble.variantCount)
                        color: bubble.theme.mutedText
                        font.pointSize: bubble.theme.fontSize - 2
                        Accessible.role: Accessible.StaticText
                        Accessible.name: qsTr("Version %1 of %2").arg(bubble.variantIndex + 1).arg(bubble.variantCount)
                    }
                    ToolButton {
                        objectName: "nextVariantButton"
                        text: ">"
                        enabled: !bubble.busy && bubble.variantIndex < bubble.variantCount - 1
                        font.pointSize: bubble.theme.fontSize - 2
                        Accessible.name: qsTr("Show the next version of this message")
                        onClicked: bubble.showVariant(bubble.variantIndex + 1)
                    }
                }
                ToolButton {
                    objectName: "copyButton"
                    text: qsTr("Copy")
                    font.pointSize: bubble.theme.fontSize - 2
                    Accessible.name: qsTr("Copy message")
                    onClicked: bubble.copyRequested(bubble.text)
                }
                ToolButton {
                    objectName: "editButton"
                    visible: bubble.isUser
                    enabled: !bubble.busy
                    text: qsTr("Edit")
                    font.pointSize: bubble.theme.fontSize - 2
                    Accessible.name: qsTr("Edit message and answer again")
                    onClicked: {
                        editArea.text = bubble.text
                        bubble.editing = true
                        editArea.forceActiveFocus()
                    }
                }
                ToolButton {
                    objectName: "regenerateButton"
                    visible: !bubble.isUser && bubble.isLast
                    enabled: !bubble.busy
                    text: qsTr("Regenerate")
                    font.pointSize: bubble.theme.fontSize - 2
                    Accessible.name: qsTr("Write this reply again")
                    onClicked: bubble.regenerateRequested()
                }
            }
        }
    }
}
