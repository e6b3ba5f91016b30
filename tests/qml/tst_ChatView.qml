import QtQuick
import QtTest
import Trit

// The chat view against a stand-in for the chat controller: sending with Enter, new lines with
// Shift+Enter, Stop while a reply is written, the full-context banner and its actions.
TestCase {
    id: testCase
    name: "ChatView"
    when: windowShown
    visible: true  // TestCase is hidden by default; these tests click and check visibility
    width: 800
    height: 600

    Component {
        id: fakeChatComponent
        QtObject {
            property ListModel messages: ListModel {}
            property bool generating: false
            property bool contextFull: false
            property string lastError: ""
            property var sent: []
            property int stops: 0
            property int drops: 0
            function send(text) { sent.push(text); messages.append({ role: "user", text: text, streaming: false,
                                                                     finishReason: "", errorText: "", stats: {}, speedHistory: [] }); return true }
            function stop() { stops++ }
            function dropOldestTurns() { drops++; return true }
            function regenerate() {}
            function editMessage(row, text) {}
            function copyText(text) {}
            property var alternatives: []
            function showAlternative(row, index) { alternatives.push([row, index]); return true }
        }
    }
    Component {
        id: viewComponent
        ChatView { width: 800; height: 600; modelReady: true }
    }

    function makeView() {
        const chat = createTemporaryObject(fakeChatComponent, testCase)
        const view = createTemporaryObject(viewComponent, testCase, { chat: chat })
        return { chat: chat, view: view, input: findChild(view, "composerInput") }
    }

    function test_enterSendsShiftEnterAddsLine() {
        const t = makeView()
        t.input.forceActiveFocus()
        keyClick(Qt.Key_H)
        keyClick(Qt.Key_I)
        keyClick(Qt.Key_Return, Qt.ShiftModifier)
        keyClick(Qt.Key_X)
        compare(t.input.text, "hi\nx")
        compare(t.chat.sent.length, 0)
        keyClick(Qt.Key_Return)
        compare(t.chat.sent.length, 1)
        compare(t.chat.sent[0], "hi\nx")
        compare(t.input.text, "", "the input is cleared after sending")
        tryCompare(findChild(t.view, "messageList"), "count", 1)
    }

    function test_emptyInputDoesNotSend() {
        const t = makeView()
        t.input.forceActiveFocus()
        keyClick(Qt.Key_Space)
        keyClick(Qt.Key_Return)
        compare(t.chat.sent.length, 0)
        verify(!findChild(t.view, "sendButton").enabled)
    }

    function test_stopWhileGenerating() {
        const t = makeView()
        t.chat.generating = true
        const stop = findChild(t.view, "stopButton")
        verify(stop, "the send button becomes Stop")
        compare(stop.Accessible.name, "Stop the reply")
        mouseClick(stop)
        compare(t.chat.stops, 1)
        // Enter does not send while a reply is written.
        t.input.forceActiveFocus()
        keyClick(Qt.Key_A)
        keyClick(Qt.Key_Return)
        compare(t.chat.sent.length, 0)
    }

    function test_noModelNoSend() {
        const t = makeView()
        t.view.modelReady = false
        t.input.text = "hello"
        verify(!findChild(t.view, "sendButton").enabled)
        t.input.forceActiveFocus()
        keyClick(Qt.Key_Return)
        compare(t.chat.sent.length, 0)
    }

    function test_contextFullBanner() {
        const t = makeView()
        const banner = findChild(t.view, "contextFullBanner")
        verify(!banner.visible)
        t.chat.contextFull = true
        verify(banner.visible)
        mouseClick(findChild(t.view, "dropOldestButton"))
        compare(t.chat.drops, 1)
        const spy = signalSpyComponent.createObject(testCase, { target: t.view, signalName: "newConversationRequested" })
        mouseClick(findChild(t.view, "newConversationButton"))
        compare(spy.count, 1)
        spy.destroy()
    }

    Component { id: signalSpyComponent; SignalSpy {} }

    function test_versionPagerReachesTheController() {
        const t = makeView()
        t.chat.messages.append({ role: "user", text: "q", streaming: false, finishReason: "", errorText: "",
                                 stats: {}, speedHistory: [], messageId: 4, variantIndex: 0, variantCount: 1 })
        t.chat.messages.append({ role: "assistant", text: "a", streaming: false, finishReason: "stop", errorText: "",
                                 stats: {}, speedHistory: [], messageId: 9, variantIndex: 1, variantCount: 2 })
        const list = findChild(t.view, "messageList")
        tryCompare(list, "count", 2)
        tryVerify(() => list.itemAtIndex(1) !== null)
        const bubble = list.itemAtIndex(1)
        compare(findChild(bubble, "variantLabel").text, "2/2")
        verify(!findChild(list.itemAtIndex(0), "variantPager").visible)
        mouseClick(findChild(bubble, "previousVariantButton"))
        compare(t.chat.alternatives.length, 1)
        compare(t.chat.alternatives[0][0], 1)
        compare(t.chat.alternatives[0][1], 0)
    }
}
