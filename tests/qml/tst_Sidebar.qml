import QtQuick
import QtTest
import Trit

// The sidebar against stand-in models: the list of conversations (pinned marked), activating one,
// search results with highlighted snippets, each conversation's menu (rename inline, pin, export,
// delete), keyboard access (Enter, F2, Delete), the undo bar, and the buttons to the dialogs.
TestCase {
    id: testCase
    name: "Sidebar"
    when: windowShown
    visible: true
    width: 300
    height: 500

    ListModel {
        id: conversationsModel
        // The roles of ConversationListModel, "model" included (it must not hide anything in the delegate).
        ListElement { conversationId: 7; title: "Pinned chat"; displayTitle: "Pinned chat"; pinned: true; model: "bitnet" }
        ListElement { conversationId: 3; title: "Recent chat"; displayTitle: "Recent chat"; pinned: false; model: "bitnet" }
        ListElement { conversationId: 2; title: ""; displayTitle: "New conversation"; pinned: false; model: "" }
    }
    ListModel {
        id: searchModel
        ListElement { conversationId: 3; conversationTitle: "Recent chat"; snippet: "about <b>ternary</b> weights" }
    }

    Component {
        id: sidebarComponent
        Sidebar { width: 280; height: 500 }
    }
    SignalSpy { id: aboutSpy; signalName: "aboutRequested" }
    SignalSpy { id: settingsSpy; signalName: "settingsRequested" }
    SignalSpy { id: modelsSpy; signalName: "modelManagerRequested" }
    SignalSpy { id: activatedSpy; signalName: "conversationActivated" }
    SignalSpy { id: renameSpy; signalName: "renameRequested" }
    SignalSpy { id: pinSpy; signalName: "pinRequested" }
    SignalSpy { id: deleteSpy; signalName: "deleteRequested" }
    SignalSpy { id: exportSpy; signalName: "exportRequested" }
    SignalSpy { id: undoSpy; signalName: "undoDeleteRequested" }
    SignalSpy { id: importSpy; signalName: "importRequested" }

    function makeBar(props) {
        const bar = createTemporaryObject(sidebarComponent, testCase,
                                          Object.assign({ conversations: conversationsModel, searchResults: searchModel }, props || {}))
        verify(bar !== null)
        for (const spy of [activatedSpy, renameSpy, pinSpy, deleteSpy, exportSpy, undoSpy, importSpy]) {
            spy.target = bar
            spy.clear()
        }
        return bar
    }
    function rowAt(bar, i) {
        const list = findChild(bar, "conversationList")
        tryVerify(() => list.itemAtIndex(i) !== null)
        return list.itemAtIndex(i)
    }

    function test_buttonsRequestTheirDialogs() {
        const bar = makeBar()
        aboutSpy.target = bar
        settingsSpy.target = bar
        modelsSpy.target = bar
        aboutSpy.clear(); settingsSpy.clear(); modelsSpy.clear()
        const about = findChild(bar, "aboutButton")
        verify(about !== null, "the sidebar offers About Trit")
        compare(about.text, "About Trit")
        verify(about.Accessible.name.length > 0)
        about.clicked()
        compare(aboutSpy.count, 1)
        compare(settingsSpy.count, 0, "About does not open the settings")
        findChild(bar, "settingsButton").clicked()
        compare(settingsSpy.count, 1)
        findChild(bar, "modelManagerButton").clicked()
        compare(modelsSpy.count, 1)
        findChild(bar, "importButton").clicked()
        compare(importSpy.count, 1)
        compare(aboutSpy.count, 1)
    }

    function test_listShowsConversationsAndOpensOne() {
        const bar = makeBar({ currentConversationId: 3 })
        const list = findChild(bar, "conversationList")
        compare(list.count, 3)
        const pinnedRow = rowAt(bar, 0)
        compare(findChild(pinnedRow, "titleLabel").text, "Pinned chat")
        verify(findChild(pinnedRow, "pinnedMark").visible, "a pinned conversation is marked")
        verify(pinnedRow.Accessible.name.indexOf("pinned") >= 0, pinnedRow.Accessible.name)
        verify(!findChild(rowAt(bar, 1), "pinnedMark").visible)
        compare(findChild(rowAt(bar, 2), "titleLabel").text, "New conversation")
        verify(rowAt(bar, 1).highlighted, "the conversation on screen is highlighted")
        mouseClick(rowAt(bar, 1))
        compare(activatedSpy.count, 1)
        compare(activatedSpy.signalArguments[0][0], 3)
        // Keyboard: Down from the search field into the list, Enter opens.
        findChild(bar, "searchField").forceActiveFocus()
        keyClick(Qt.Key_Down)
        verify(list.activeFocus)
        list.currentIndex = 0
        keyClick(Qt.Key_Return)
        compare(activatedSpy.count, 2)
        compare(activatedSpy.signalArguments[1][0], 7)
    }

    function test_withoutStorageTheListSaysSo() {
        const bar = makeBar({ conversations: null, searchResults: null })
        compare(findChild(bar, "conversationList").count, 0)
        verify(!findChild(bar, "searchField").enabled)
        verify(!findChild(bar, "importButton").enabled)
    }

    function test_searchShowsHighlightedMatchesAndOpensTheConversation() {
        const bar = makeBar()
        const field = findChild(bar, "searchField")
        verify(field.Accessible.name.length > 0)
        bar.searchText = "tern"
        verify(bar.searching)
        const results = findChild(bar, "searchResultList")
        verify(results.visible)
        verify(!findChild(bar, "conversationList").visible)
        tryCompare(results, "count", 1)
        tryVerify(() => results.itemAtIndex(0) !== null)
        const hit = results.itemAtIndex(0)
        tryVerify(() => results.height > 0 && hit.width > 0, 2000, "the results are laid out")
        const snippet = findChild(hit, "snippetText")
        compare(snippet.textFormat, Text.StyledText)
        compare(snippet.text, "about <b>ternary</b> weights")
        verify(hit.Accessible.name.indexOf("<b>") < 0, "the accessible name is plain text")
        mouseClick(hit)
        compare(activatedSpy.count, 1)
        compare(activatedSpy.signalArguments[0][0], 3)
        // Escape in the field clears the search and shows the list again.
        field.forceActiveFocus()
        keyClick(Qt.Key_Escape)
        compare(bar.searchText, "")
        verify(findChild(bar, "conversationList").visible)
    }

    function test_menuActions() {
        const bar = makeBar()
        const menu = findChild(bar, "conversationMenu")
        // Pin/unpin follows the row's state.
        rowAt(bar, 0).openMenu()
        verify(menu.opened || menu.visible)
        compare(findChild(menu, "pinAction").text, "Unpin")
        findChild(menu, "pinAction").triggered()
        compare(pinSpy.count, 1)
        compare(pinSpy.signalArguments[0][0], 7)
        compare(pinSpy.signalArguments[0][1], false)
        menu.close()
        rowAt(bar, 1).openMenu()
        compare(findChild(menu, "pinAction").text, "Pin to the top")
        findChild(menu, "exportMarkdownAction").triggered()
        findChild(menu, "exportJsonAction").triggered()
        compare(exportSpy.count, 2)
        compare(exportSpy.signalArguments[0][0], 3)
        compare(exportSpy.signalArguments[0][1], "markdown")
        compare(exportSpy.signalArguments[1][1], "json")
        findChild(menu, "deleteAction").triggered()
        compare(deleteSpy.count, 1)
        compare(deleteSpy.signalArguments[0][0], 3)
        menu.close()
    }

    function test_renameInline() {
        const bar = makeBar()
        const row = rowAt(bar, 1)
        row.openMenu()
        findChild(bar, "renameAction").triggered()
        findChild(bar, "conversationMenu").close()
        verify(row.renaming)
        const field = findChild(row, "renameField")
        tryVerify(() => field.activeFocus)
        compare(field.text, "Recent chat")
        field.selectAll()
        keyClick(Qt.Key_N)
        keyClick(Qt.Key_E)
        keyClick(Qt.Key_W)
        keyClick(Qt.Key_Return)
        verify(!row.renaming)
        compare(renameSpy.count, 1)
        compare(renameSpy.signalArguments[0][0], 3)
        compare(renameSpy.signalArguments[0][1], "new")
        // F2 starts it from the keyboard, Escape leaves the title alone.
        const list = findChild(bar, "conversationList")
        list.forceActiveFocus()
        list.currentIndex = 1
        keyClick(Qt.Key_F2)
        verify(row.renaming)
        keyClick(Qt.Key_X)
        keyClick(Qt.Key_Escape)
        verify(!row.renaming)
        compare(renameSpy.count, 1)
        // Delete key deletes the current one.
        list.forceActiveFocus()
        keyClick(Qt.Key_Delete)
        compare(deleteSpy.count, 1)
        compare(deleteSpy.signalArguments[0][0], 3)
    }

    function test_undoBar() {
        const bar = makeBar()
        const undoBar = findChild(bar, "undoBar")
        verify(!undoBar.visible)
        bar.undoTitle = "Recent chat"
        bar.canUndoDelete = true
        verify(undoBar.visible)
        const button = findChild(bar, "undoDeleteButton")
        verify(button.Accessible.name.indexOf("Recent chat") >= 0)
        mouseClick(button)
        compare(undoSpy.count, 1)
    }
}
