import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// New chat, import, search, the saved conversations (pinned first, then by last use) and the way to
// the model manager, the settings and About. Each conversation has a menu (right click, the "…"
// button, the Menu key or Shift+F10): rename (also F2, inline), pin/unpin, export to Markdown or JSON,
// delete (also the Delete key) with an undo bar for a few seconds. Typing in the search field shows
// full-text matches across all messages instead, with the matching words highlighted.
Pane {
    id: sidebar
    // ConversationListModel (roles conversationId, displayTitle, pinned used) or a stand-in; null when the
    // conversations are not saved (then the list says so).
    property var conversations: null
    // ConversationSearchModel (roles conversationId, conversationTitle, snippet as rich text).
    property var searchResults: null
    property var currentConversationId: 0
    property bool canUndoDelete: false
    property string undoTitle: ""
    property ChatTheme theme: ChatTheme {}
    property alias searchText: search.text
    readonly property bool searching: search.text.trim().length > 0
    readonly property alias conversationList: conversationList
    readonly property alias searchList: searchList

    signal newChatRequested()
    signal importRequested()
    signal conversationActivated(var conversationId)
    signal renameRequested(var conversationId, string title)
    signal pinRequested(var conversationId, bool pinned)
    signal deleteRequested(var conversationId)
    signal undoDeleteRequested()
    signal exportRequested(var conversationId, string format)
    signal modelManagerRequested()
    signal settingsRequested()
    signal aboutRequested()

    function focusSearch() { search.forceActiveFocus(); search.selectAll() }

    padding: 8
    background: Rectangle { color: sidebar.theme.sidebar }

    // The menu of one conversation, opened for the row that asked.
    Menu {
        id: rowMenu
        objectName: "conversationMenu"
        property var conversationId: 0
        property bool pinned: false
        property var row: null
        MenuItem {
            objectName: "renameAction"
            text: qsTr("Rename")
            onTriggered: if (rowMenu.row) rowMenu.row.startRename()
        }
        MenuItem {
            objectName: "pinAction"
            text: rowMenu.pinned ? qsTr("Unpin") : qsTr("Pin to the top")
            onTriggered: sidebar.pinRequested(rowMenu.conversationId, !rowMenu.pinned)
        }
        MenuSeparator {}
        MenuItem {
            objectName: "exportMarkdownAction"
            text: qsTr("Export as Markdown…")
            onTriggered: sidebar.exportRequested(rowMenu.conversationId, "markdown")
        }
        MenuItem {
            objectName: "exportJsonAction"
            text: qsTr("Export as JSON…")
            onTriggered: sidebar.exportRequested(rowMenu.conversationId, "json")
        }
        MenuSeparator {}
        MenuItem {
            objectName: "deleteAction"
            text: qsTr("Delete")
            onTriggered: sidebar.deleteRequested(rowMenu.conversationId)
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        RowLayout {
            Layout.fillWidth: true
            spacing: 4
            Button {
                id: newChat
                objectName: "newChatButton"
                Layout.fillWidth: true
                text: qsTr("New chat")
                Accessible.name: qsTr("Start a new chat (Ctrl+N)")
                onClicked: sidebar.newChatRequested()
                KeyNavigation.tab: importButton
            }
            Button {
                id: importButton
                objectName: "importButton"
                text: qsTr("Import…")
                enabled: sidebar.conversations !== null
                Accessible.name: qsTr("Import a conversation from a JSON file")
                ToolTip.visible: hovered
                ToolTip.text: Accessible.name
                onClicked: sidebar.importRequested()
                KeyNavigation.tab: search
            }
        }
        TextField {
            id: search
            objectName: "searchField"
            Layout.fillWidth: true
            enabled: sidebar.conversations !== null
            placeholderText: qsTr("Search conversations (Ctrl+K)")
            Accessible.role: Accessible.EditableText
            Accessible.name: qsTr("Search all messages of all conversations")
            KeyNavigation.tab: sidebar.searching ? searchList : conversationList
            Keys.onEscapePressed: text = ""
            Keys.onDownPressed: {
                const list = sidebar.searching ? searchList : conversationList
                list.forceActiveFocus()
                if (list.currentIndex < 0 && list.count > 0) list.currentIndex = 0
            }
        }

        // The saved conversations.
        ListView {
            id: conversationList
            objectName: "conversationList"
            visible: !sidebar.searching
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: sidebar.conversations
            activeFocusOnTab: true
            keyNavigationEnabled: true
            currentIndex: -1
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Conversations")
            KeyNavigation.tab: modelsButton
            ScrollBar.vertical: ScrollBar {}
            Keys.onReturnPressed: if (currentItem) currentItem.activate()
            Keys.onEnterPressed: if (currentItem) currentItem.activate()
            Keys.onPressed: (event) => {
                if (!currentItem || currentItem.renaming) return
                if (event.key === Qt.Key_F2) { currentItem.startRename(); event.accepted = true }
                else if (event.key === Qt.Key_Delete) { currentItem.requestDelete(); event.accepted = true }
                else if (event.key === Qt.Key_Menu || (event.key === Qt.Key_F10 && (event.modifiers & Qt.ShiftModifier))) {
                    currentItem.openMenu(); event.accepted = true
                }
            }

            delegate: ItemDelegate {
                id: row
                // Roles as required properties: ConversationListModel has a role named "model" (the
                // model a conversation used), which would hide the delegate's usual `model` object.
                required property int index
                required property var conversationId
                required property string displayTitle
                required property bool pinned
                readonly property string title: displayTitle
                property bool renaming: false
                objectName: "conversationRow" + index
                width: ListView.view.width
                highlighted: ListView.isCurrentItem || conversationId === sidebar.currentConversationId
                Accessible.name: (pinned ? qsTr("%1, pinned") : "%1").arg(title)
                Accessible.description: qsTr("Enter opens it; F2 renames, Delete deletes, the Menu key shows more")

                function activate() {
                    ListView.view.currentIndex = index
                    sidebar.conversationActivated(conversationId)
                }
                function startRename() {
                    renameField.text = title
                    renaming = true
                    renameField.forceActiveFocus()
                    renameField.selectAll()
                }
                function finishRename(commit) {
                    if (!renaming) return
                    renaming = false
                    const text = renameField.text.trim()
                    if (commit && text.length > 0 && text !== title)
                        sidebar.renameRequested(conversationId, text)
                    // Give the keys back to the list (not to the hidden field, which would keep them).
                    renameField.focus = false
                    conversationList.forceActiveFocus()
                }
                function requestDelete() { sidebar.deleteRequested(conversationId) }
                function openMenu() {
                    rowMenu.conversationId = conversationId
                    rowMenu.pinned = pinned
                    rowMenu.row = row
                    rowMenu.popup(row, row.width - rowMenu.implicitWidth, row.height)
                }

                onClicked: activate()
                TapHandler {
                    acceptedButtons: Qt.RightButton
                    onTapped: row.openMenu()
                }

                contentItem: RowLayout {
                    spacing: 4
                    Label {
                        objectName: "titleLabel"
                        visible: !row.renaming
                        Layout.fillWidth: true
                        text: row.title
                        elide: Text.ElideRight
                        color: row.highlighted ? sidebar.theme.accentText : sidebar.theme.text
                    }
                    Label {
                        objectName: "pinnedMark"
                        visible: row.pinned && !row.renaming
                        text: qsTr("pinned")
                        color: row.highlighted ? sidebar.theme.accentText : sidebar.theme.mutedText
                        font.pointSize: sidebar.theme.fontSize - 3
                    }
                    TextField {
                        id: renameField
                        objectName: "renameField"
                        visible: row.renaming
                        Layout.fillWidth: true
                        Accessible.name: qsTr("New title for the conversation")
                        Keys.onReturnPressed: row.finishRename(true)
                        Keys.onEnterPressed: row.finishRename(true)
                        Keys.onEscapePressed: row.finishRename(false)
                        onActiveFocusChanged: if (!activeFocus && row.renaming) row.finishRename(true)
                    }
                    ToolButton {
                        objectName: "conversationMenuButton"
                        visible: !row.renaming && (row.hovered || row.highlighted)
                        text: "…"
                        focusPolicy: Qt.NoFocus
                        Accessible.name: qsTr("More actions for %1").arg(row.title)
                        onClicked: row.openMenu()
                    }
                }
            }
            Label {
                anchors.centerIn: parent
                width: parent.width - 16
                visible: conversationList.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                text: sidebar.conversations ? qsTr("No conversations yet") : qsTr("Conversations are not being saved")
                color: sidebar.theme.mutedText
            }
        }

        // Full-text matches while searching; choosing one opens its conversation.
        ListView {
            id: searchList
            objectName: "searchResultList"
            visible: sidebar.searching
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: sidebar.searching ? sidebar.searchResults : null
            activeFocusOnTab: true
            keyNavigationEnabled: true
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Search results")
            KeyNavigation.tab: modelsButton
            ScrollBar.vertical: ScrollBar {}
            Keys.onReturnPressed: if (currentItem) currentItem.clicked()
            Keys.onEnterPressed: if (currentItem) currentItem.clicked()
            delegate: ItemDelegate {
                id: hit
                required property int index
                required property var model
                objectName: "searchHit" + index
                width: ListView.view.width
                highlighted: ListView.isCurrentItem
                Accessible.name: qsTr("%1: %2").arg(model.conversationTitle).arg(snippetText.text.replace(/<[^>]*>/g, ""))
                onClicked: {
                    ListView.view.currentIndex = index
                    sidebar.conversationActivated(model.conversationId)
                }
                contentItem: ColumnLayout {
                    spacing: 2
                    Label {
                        Layout.fillWidth: true
                        text: hit.model.conversationTitle.length > 0 ? hit.model.conversationTitle : qsTr("New conversation")
                        elide: Text.ElideRight
                        font.bold: true
                        color: sidebar.theme.text
                    }
                    Text {
                        id: snippetText
                        objectName: "snippetText"
                        Layout.fillWidth: true
                        text: hit.model.snippet
                        textFormat: Text.StyledText  // the store escapes the text; matches come as <b>
                        wrapMode: Text.Wrap
                        maximumLineCount: 3
                        elide: Text.ElideRight
                        color: sidebar.theme.mutedText
                        font.pointSize: sidebar.theme.fontSize - 1
                    }
                }
            }
            Label {
                anchors.centerIn: parent
                width: parent.width - 16
                visible: searchList.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                text: qsTr("No message matches")
                color: sidebar.theme.mutedText
            }
        }

        // Undo of a delete, for the few seconds before it is final.
        Rectangle {
            objectName: "undoBar"
            visible: sidebar.canUndoDelete
            Layout.fillWidth: true
            implicitHeight: undoRow.implicitHeight + 8
            radius: 4
            color: sidebar.theme.surface
            border.color: sidebar.theme.border
            RowLayout {
                id: undoRow
                anchors.fill: parent
                anchors.margins: 4
                Label {
                    Layout.fillWidth: true
                    text: qsTr("Deleted “%1”").arg(sidebar.undoTitle)
                    elide: Text.ElideRight
                    color: sidebar.theme.text
                }
                Button {
                    objectName: "undoDeleteButton"
                    text: qsTr("Undo")
                    Accessible.name: qsTr("Undo deleting %1").arg(sidebar.undoTitle)
                    onClicked: sidebar.undoDeleteRequested()
                }
            }
        }

        Button {
            id: modelsButton
            objectName: "modelManagerButton"
            Layout.fillWidth: true
            text: qsTr("Models…")
            Accessible.name: qsTr("Manage models")
            onClicked: sidebar.modelManagerRequested()
            KeyNavigation.tab: settingsButton
        }
        Button {
            id: settingsButton
            objectName: "settingsButton"
            Layout.fillWidth: true
            text: qsTr("Settings…")
            Accessible.name: qsTr("Settings (Ctrl+,)")
            onClicked: sidebar.settingsRequested()
            KeyNavigation.tab: aboutButton
        }
        Button {
            id: aboutButton
            objectName: "aboutButton"
            Layout.fillWidth: true
            flat: true
            text: qsTr("About Trit")
            Accessible.name: qsTr("About Trit (F1): version, GPU and licences")
            onClicked: sidebar.aboutRequested()
        }
    }
}
