import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One message of the conversation. A user message is plain text and can be edited (the reply is then
// written again from that point); an assistant reply is a column of Markdown and code blocks that grows
// while it streams, then shows its statistics. A message with earlier versions (edits, regenerations)
// has a pager "< 2/3 >": choosing a version shows it and the conversation that followed it.
// The conversation is a centred column of readable width: the user's messages are tinted bubbles on the
// right, replies run on the window itself. The actions under a message (versions, copy, edit,
// regenerate) appear while the pointer is over it or one of them has keyboard focus (Tab reaches them
// even while hidden), and always under the last reply.
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
    // Shown: hovered, an action focused by keyboard, or the last reply (what one acts on most).
    readonly property bool actionsRevealed: hover.hovered || actionsScope.activeFocus || (isLast && !isUser)
    readonly property real columnWidth: Math.max(120, Math.min(width - 2 * theme.spaceXl, theme.readingWidth))
    implicitHeight: column.y + column.implicitHeight + theme.spaceS

    Accessible.role: Accessible.ListItem
    Accessible.name: (isUser ? qsTr("You said: %1") : qsTr("Trit replied: %1")).arg(text)

    HoverHandler { id: hover }

    ColumnLayout {
        id: column
        x: (bubble.width - width) / 2
        y: bubble.theme.spaceS
        width: bubble.columnWidth
        spacing: bubble.theme.spaceXs

        Rectangle {
            id: frame
            objectName: "messageFrame"
            readonly property real padding: bubble.isUser ? bubble.theme.spaceM : 0
            Layout.alignment: bubble.isUser ? Qt.AlignRight : Qt.AlignLeft
            Layout.preferredWidth: bubble.isUser && !bubble.editing
                                   // rounded up: a layout that rounds the text's width down wraps its last word
                                   ? Math.min(bubble.columnWidth * 0.8, Math.ceil(userText.implicitWidth) + 2 + 2 * padding)
                                   : bubble.columnWidth
            Layout.preferredHeight: content.implicitHeight + 2 * padding
            radius: bubble.theme.radiusL
            color: bubble.isUser ? bubble.theme.userBubble : bubble.theme.assistantBubble

            ColumnLayout {
                id: content
                x: frame.padding
                y: frame.padding
                width: frame.width - 2 * frame.padding
                spacing: bubble.theme.spaceS

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
                    selectedTextColor: bubble.theme.accentText
                    font.pointSize: bubble.theme.fontBody
                }

                // Editing a user message.
                ColumnLayout {
                    visible: bubble.editing
                    Layout.fillWidth: true
                    spacing: bubble.theme.spaceS
                    TextArea {
                        id: editArea
                        objectName: "editArea"
                        Layout.fillWidth: true
                        wrapMode: TextEdit.Wrap
                        font.pointSize: bubble.theme.fontBody
                        color: bubble.theme.text
                        Accessible.name: qsTr("Edit your message")
                        background: Rectangle {
                            radius: bubble.theme.radiusS
                            color: bubble.theme.surface
                            border.color: editArea.activeFocus ? bubble.theme.focusRing : bubble.theme.border
                        }
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
                        Layout.alignment: Qt.AlignRight
                        spacing: bubble.theme.spaceS
                        Button {
                            text: qsTr("Cancel")
                            onClicked: bubble.editing = false
                        }
                        Button {
                            id: saveEdit
                            objectName: "saveEditButton"
                            text: qsTr("Save and send")
                            highlighted: true
                            enabled: editArea.text.trim().length > 0
                            onClicked: {
                                bubble.editing = false
                                bubble.editSubmitted(bubble.row, editArea.text)
                            }
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
                        implicitHeight: loader.item ? (loader.item as Item).implicitHeight : 0
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
                    font.pointSize: bubble.theme.fontSmall
                }
            }
        }

        MessageStats {
            visible: !bubble.isUser && !bubble.streaming && (summary.length > 0 || reasonText.length > 0)
            Layout.fillWidth: true
            stats: bubble.stats
            speedHistory: bubble.speedHistory
            finishReason: bubble.finishReason
            theme: bubble.theme
        }

        // The actions: kept in the layout while hidden, so nothing moves when they appear.
        FocusScope {
            id: actionsScope
            objectName: "messageActions"
            visible: !bubble.streaming && !bubble.editing
            Layout.alignment: bubble.isUser ? Qt.AlignRight : Qt.AlignLeft
            implicitWidth: actions.implicitWidth
            implicitHeight: actions.implicitHeight
            opacity: bubble.actionsRevealed ? 1 : 0
            Behavior on opacity { NumberAnimation { duration: bubble.theme.durationFast } }

            RowLayout {
                id: actions
                spacing: 0
                // Versions of this message: earlier edits or regenerations are kept, not replaced.
                RowLayout {
                    objectName: "variantPager"
                    visible: bubble.variantCount > 1
                    spacing: 0
                    IconButton {
                        objectName: "previousVariantButton"
                        iconName: "go-previous"
                        theme: bubble.theme
                        enabled: !bubble.busy && bubble.variantIndex > 0
                        toolTipText: qsTr("Show the previous version of this message")
                        onClicked: bubble.showVariant(bubble.variantIndex - 1)
                    }
                    Label {
                        objectName: "variantLabel"
                        text: qsTr("%1/%2").arg(bubble.variantIndex + 1).arg(bubble.variantCount)
                        color: bubble.theme.mutedText
                        font.pointSize: bubble.theme.fontCaption
                        Accessible.role: Accessible.StaticText
                        Accessible.name: qsTr("Version %1 of %2").arg(bubble.variantIndex + 1).arg(bubble.variantCount)
                    }
                    IconButton {
                        objectName: "nextVariantButton"
                        iconName: "go-next"
                        theme: bubble.theme
                        enabled: !bubble.busy && bubble.variantIndex < bubble.variantCount - 1
                        toolTipText: qsTr("Show the next version of this message")
                        onClicked: bubble.showVariant(bubble.variantIndex + 1)
                    }
                }
                IconButton {
                    objectName: "copyButton"
                    iconName: "edit-copy"
                    theme: bubble.theme
                    toolTipText: qsTr("Copy message")
                    onClicked: bubble.copyRequested(bubble.text)
                }
                IconButton {
                    objectName: "editButton"
                    iconName: "document-edit"
                    theme: bubble.theme
                    visible: bubble.isUser
                    enabled: !bubble.busy
                    toolTipText: qsTr("Edit message and answer again")
                    onClicked: {
                        editArea.text = bubble.text
                        bubble.editing = true
                        editArea.forceActiveFocus()
                    }
                }
                IconButton {
                    objectName: "regenerateButton"
                    iconName: "view-refresh"
                    theme: bubble.theme
                    visible: !bubble.isUser && bubble.isLast
                    enabled: !bubble.busy
                    toolTipText: qsTr("Write this reply again")
                    onClicked: bubble.regenerateRequested()
                }
            }
        }
    }
}
