import QtQuick
import QtQuick.Controls
import QtQuick.Controls.impl
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

    padding: theme.spaceM
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
        spacing: sidebar.theme.spaceS
        // The app's name and the way into a new conversation: the top of the hierarchy.
        RowLayout {
            Layout.fillWidth: true
            Layout.leftMargin: sidebar.theme.spaceXs
            spacing: sidebar.theme.spaceXs
            Label {
                objectName: "brandLabel"
                Layout.fillWidth: true
                text: qsTr("Trit")
                font.pointSize: sidebar.theme.fontTitle
                font.weight: Font.DemiBold
                color: sidebar.theme.text
            }
            IconButton {
                id: importButton
                objectName: "importButton"
                theme: sidebar.theme
                iconName: "document-open"
                enabled: sidebar.conversations !== null
                toolTipText: qsTr("Import a conversation from a JSON file")
                onClicked: sidebar.importRequested()
                KeyNavigation.tab: search
            }
        }
        IconButton {
            id: newChat
            objectName: "newChatButton"
            Layout.fillWidth: true
            Layout.preferredHeight: 34
            theme: sidebar.theme
            outlined: true
            iconName: "list-add"
            text: qsTr("New chat")
            font.pointSize: sidebar.theme.fontBody
            toolTipText: qsTr("Start a new chat (Ctrl+N)")
            onClicked: sidebar.newChatRequested()
            KeyNavigation.tab: importButton
        }
        TextField {
            id: search
            objectName: "searchField"
            Layout.fillWidth: true
            enabled: sidebar.conversations !== null
            leftPadding: searchIcon.width + 2 * sidebar.theme.spaceS
            placeholderText: qsTr("Search conversations")
            ToolTip.visible: hovered && !activeFocus
            ToolTip.delay: 700
            ToolTip.text: qsTr("Search all messages (Ctrl+K)")
            placeholderTextColor: sidebar.theme.mutedText
            color: sidebar.theme.text
            Accessible.role: Accessible.EditableText
            Accessible.name: qsTr("Search all messages of all conversations")
            KeyNavigation.tab: sidebar.searching ? searchList : conversationList
            Keys.onEscapePressed: text = ""
            Keys.onDownPressed: {
                const list = sidebar.searching ? searchList : conversationList
                list.forceActiveFocus()
                if (list.currentIndex < 0 && list.count > 0) list.currentIndex = 0
            }
            background: Rectangle {
                implicitHeight: 32
                radius: sidebar.theme.radiusS
                color: sidebar.theme.surface
                border.width: search.activeFocus ? 2 : 1
                border.color: search.activeFocus ? sidebar.theme.focusRing : sidebar.theme.border
            }
            IconImage {
                id: searchIcon
                x: sidebar.theme.spaceS
                anchors.verticalCenter: parent.verticalCenter
                sourceSize.width: 14
                sourceSize.height: 14
                source: sidebar.theme.icon("system-search")
                color: sidebar.theme.mutedText
            }
        }
        Label {
            Layout.leftMargin: sidebar.theme.spaceXs
            Layout.topMargin: sidebar.theme.spaceXs
            text: sidebar.searching ? qsTr("Matches") : qsTr("Conversations")
            font.pointSize: sidebar.theme.fontCaption
            font.weight: Font.DemiBold
            color: sidebar.theme.mutedText
            Accessible.role: Accessible.Heading
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
            // (activate() is the row delegate's own function, which qmllint cannot see on currentItem.)
            Keys.onReturnPressed: if (currentItem) currentItem.activate() // qmllint disable
            Keys.onEnterPressed: if (currentItem) currentItem.activate() // qmllint disable
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
                leftPadding: sidebar.theme.spaceS
                rightPadding: sidebar.theme.spaceXs
                topPadding: sidebar.theme.spaceXs + 2
                bottomPadding: sidebar.theme.spaceXs + 2
                background: Rectangle {
                    radius: sidebar.theme.radiusS
                    color: row.highlighted ? sidebar.theme.selected : row.hovered ? sidebar.theme.hover : "transparent"
                    border.width: row.visualFocus || (row.ListView.isCurrentItem && row.ListView.view.activeFocus) ? 2 : 0
                    border.color: sidebar.theme.focusRing
                    Behavior on color { ColorAnimation { duration: sidebar.theme.durationFast } }
                }
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
                        color: sidebar.theme.text
                        font.weight: row.highlighted ? Font.DemiBold : Font.Normal
                    }
                    IconImage {
                        objectName: "pinnedMark"
                        visible: row.pinned && !row.renaming
                        source: sidebar.theme.icon("view-pin")
                        sourceSize.width: 12
                        sourceSize.height: 12
                        color: sidebar.theme.mutedText
                        Accessible.role: Accessible.Graphic
                        Accessible.name: qsTr("pinned")
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
                    IconButton {
                        objectName: "conversationMenuButton"
                        theme: sidebar.theme
                        visible: !row.renaming && (row.hovered || row.highlighted)
                        iconName: "view-more"
                        implicitHeight: 22
                        implicitWidth: 22
                        padding: 3
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
            Keys.onReturnPressed: if (currentItem) (currentItem as ItemDelegate).clicked()
            Keys.onEnterPressed: if (currentItem) (currentItem as ItemDelegate).clicked()
            delegate: ItemDelegate {
                id: hit
                required property int index
                required property var model
                objectName: "searchHit" + index
                width: ListView.view.width
                highlighted: ListView.isCurrentItem
                background: Rectangle {
                    radius: sidebar.theme.radiusS
                    color: hit.highlighted ? sidebar.theme.selected : hit.hovered ? sidebar.theme.hover : "transparent"
                }
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
                        font.pointSize: sidebar.theme.fontSmall
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

        // The way out of the chat: models, settings, About, under a rule.
        Rectangle { Layout.fillWidth: true; implicitHeight: 1; color: sidebar.theme.border }
        IconButton {
            id: modelsButton
            objectName: "modelManagerButton"
            Layout.fillWidth: true
            theme: sidebar.theme
            alignment: Qt.AlignLeft | Qt.AlignVCenter
            iconName: "drive-harddisk"
            text: qsTr("Models")
            font.pointSize: sidebar.theme.fontBody
            Accessible.name: qsTr("Manage models")
            onClicked: sidebar.modelManagerRequested()
            KeyNavigation.tab: settingsButton
        }
        IconButton {
            id: settingsButton
            objectName: "settingsButton"
            Layout.fillWidth: true
            theme: sidebar.theme
            alignment: Qt.AlignLeft | Qt.AlignVCenter
            iconName: "emblem-system"
            text: qsTr("Settings…")
            font.pointSize: sidebar.theme.fontBody
            Accessible.name: qsTr("Settings (Ctrl+,)")
            onClicked: sidebar.settingsRequested()
            KeyNavigation.tab: aboutButton
        }
        IconButton {
            id: aboutButton
            objectName: "aboutButton"
            Layout.fillWidth: true
            theme: sidebar.theme
            alignment: Qt.AlignLeft | Qt.AlignVCenter
            iconName: "help-about"
            text: qsTr("About Trit")
            font.pointSize: sidebar.theme.fontBody
            Accessible.name: qsTr("About Trit (F1): version, GPU and licences")
            onClicked: sidebar.aboutRequested()
        }
    }
}
