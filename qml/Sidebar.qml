import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// New chat, search, the list of conversations (when the storage provides a model) and the way to the
// model manager and the settings.
Pane {
    id: sidebar
    // A list model of conversations with roles "title" (and optionally "conversationId"); null until the
    // conversation store is available.
    property var conversations: null
    property ChatTheme theme: ChatTheme {}
    property alias searchText: search.text
    signal newChatRequested()
    signal conversationActivated(int index, var conversationId)
    signal modelManagerRequested()
    signal settingsRequested()
    signal aboutRequested()

    function focusSearch() { search.forceActiveFocus(); search.selectAll() }

    padding: 8
    background: Rectangle { color: sidebar.theme.sidebar }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Button {
            id: newChat
            objectName: "newChatButton"
            Layout.fillWidth: true
            text: qsTr("New chat")
            Accessible.name: qsTr("Start a new chat (Ctrl+N)")
            onClicked: sidebar.newChatRequested()
            KeyNavigation.tab: search
        }
        TextField {
            id: search
            objectName: "searchField"
            Layout.fillWidth: true
            placeholderText: qsTr("Search conversations (Ctrl+K)")
            Accessible.role: Accessible.EditableText
            Accessible.name: qsTr("Search conversations")
            KeyNavigation.tab: conversationList
        }
        ListView {
            id: conversationList
            objectName: "conversationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: sidebar.conversations
            activeFocusOnTab: true
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Conversations")
            KeyNavigation.tab: modelsButton
            delegate: ItemDelegate {
                required property int index
                required property var model
                width: ListView.view.width
                text: model.title !== undefined && model.title.length > 0 ? model.title : qsTr("Untitled")
                highlighted: ListView.isCurrentItem
                onClicked: {
                    ListView.view.currentIndex = index
                    sidebar.conversationActivated(index, model.conversationId)
                }
            }
            Label {
                anchors.centerIn: parent
                width: parent.width - 16
                visible: conversationList.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                text: sidebar.conversations ? qsTr("No conversations yet") : qsTr("Conversations will be listed here")
                color: sidebar.theme.mutedText
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
