import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The conversation: messages, the banners for a full context or an error, and the composer.
Pane {
    id: view
    property var chat: null               // ChatController (or a test double with the same members)
    property bool modelReady: false
    property bool baseModel: false        // the model has no chat format: it continues the text sent
    property ChatTheme theme: ChatTheme {}
    readonly property alias messageList: list
    readonly property alias composer: composerItem
    signal newConversationRequested()

    padding: 0
    background: Rectangle { color: view.theme.window }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        ListView {
            id: list
            objectName: "messageList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: view.chat ? view.chat.messages : null
            spacing: view.theme.spaceXs
            topMargin: view.theme.spaceM
            bottomMargin: view.theme.spaceM
            reuseItems: false
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Conversation")
            ScrollBar.vertical: ScrollBar {}
            // Follow the reply as it grows, unless the user scrolled up to read.
            property bool follow: true
            onMovementEnded: follow = atYEnd
            // (Qt 6.4's qmllint takes Qt.callLater for a QJSValue property; it is Qt's documented method.)
            onContentHeightChanged: if (follow) Qt.callLater(list.positionViewAtEnd) // qmllint disable
            onCountChanged: { follow = true; Qt.callLater(list.positionViewAtEnd) } // qmllint disable

            delegate: MessageBubble {
                required property int index
                required property var model
                width: ListView.view.width
                row: index
                role: model.role
                text: model.text
                segments: model.segments
                streaming: model.streaming
                finishReason: model.finishReason
                errorText: model.errorText
                stats: model.stats
                speedHistory: model.speedHistory
                // Stand-ins without versions (tests) show none.
                variantIndex: model.variantIndex !== undefined ? model.variantIndex : 0
                variantCount: model.variantCount !== undefined ? model.variantCount : 1
                isLast: index === ListView.view.count - 1
                busy: view.chat ? view.chat.generating : false
                theme: view.theme
                onCopyRequested: (text) => view.chat.copyText(text)
                onEditSubmitted: (row, text) => view.chat.editMessage(row, text)
                onRegenerateRequested: view.chat.regenerate()
                onAlternativeRequested: (row, index) => view.chat.showAlternative(row, index)
            }
        }

        // Context full: say so, offer the two ways on.
        Rectangle {
            objectName: "contextFullBanner"
            visible: view.chat !== null && view.chat.contextFull
            Layout.fillWidth: true
            implicitHeight: fullRow.implicitHeight + 2 * view.theme.spaceS
            color: view.theme.errorBackground
            RowLayout {
                id: fullRow
                anchors.fill: parent
                anchors.margins: view.theme.spaceS
                anchors.leftMargin: view.theme.spaceL
                spacing: view.theme.spaceS
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: qsTr("The conversation is longer than the model's context. Nothing was cut off: start a new conversation, or drop the oldest messages to continue.")
                    color: view.theme.text
                }
                Button {
                    objectName: "newConversationButton"
                    text: qsTr("New conversation")
                    onClicked: view.newConversationRequested()
                }
                Button {
                    objectName: "dropOldestButton"
                    text: qsTr("Drop oldest messages")
                    onClicked: view.chat.dropOldestTurns()
                }
            }
        }

        // An engine error that belongs to no message (e.g. "no model loaded").
        Label {
            objectName: "chatErrorLabel"
            visible: view.chat !== null && view.chat.lastError.length > 0 && !view.chat.contextFull
            Layout.fillWidth: true
            Layout.margins: view.theme.spaceS
            Layout.leftMargin: view.theme.spaceL
            wrapMode: Text.Wrap
            text: view.chat ? view.chat.lastError : ""
            color: view.theme.error
        }

        Label {
            objectName: "baseModelNotice"
            visible: view.modelReady && view.baseModel
            Layout.fillWidth: true
            Layout.leftMargin: view.theme.spaceL
            Layout.rightMargin: view.theme.spaceL
            horizontalAlignment: Text.AlignHCenter
            font.pointSize: view.theme.fontSmall
            wrapMode: Text.Wrap
            text: qsTr("This is a base model: it has no chat format, so it continues the text you send instead of answering it.")
            color: view.theme.mutedText
        }

        Composer {
            id: composerItem
            Layout.fillWidth: true
            busy: view.chat ? view.chat.generating : false
            canSend: view.modelReady
            completion: view.baseModel
            theme: view.theme
            onSendRequested: (text) => view.chat.send(text)
            onStopRequested: view.chat.stop()
        }
    }
}
