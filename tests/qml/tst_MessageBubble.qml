import QtQuick
import QtTest
import Trit

// A message bubble: prose and code blocks of a reply, copy, edit and regenerate.
TestCase {
    name: "MessageBubble"
    when: windowShown
    visible: true  // TestCase is hidden by default; these tests click and check visibility
    width: 700
    height: 500

    ListModel {
        id: replySegments
        ListElement { kind: "prose"; markdown: "Here is **code**:"; source: "Here is **code**:"; language: "" }
        ListElement { kind: "code"; markdown: ""; source: "print(\"<hi>\")"; language: "python" }
    }

    Component {
        id: bubbleComponent
        MessageBubble { width: 700 }
    }

    SignalSpy { id: copySpy; signalName: "copyRequested" }
    SignalSpy { id: editSpy; signalName: "editSubmitted" }
    SignalSpy { id: regenSpy; signalName: "regenerateRequested" }
    SignalSpy { id: variantSpy; signalName: "alternativeRequested" }

    function test_replyShowsProseAndCodeBlocks() {
        const b = createTemporaryObject(bubbleComponent, this,
                                        { role: "assistant", text: "Here is code", segments: replySegments,
                                          isLast: true, stats: { generatedTokens: 12, promptTokens: 5, reusedTokens: 0,
                                                                 ttftMs: 40, promptTokensPerSecond: 250,
                                                                 generationTokensPerSecond: 33.3 } })
        verify(b)
        const code = findChild(b, "codeText")
        verify(code, "a code block is shown")
        compare(code.text, "print(\"<hi>\")")
        verify(code.font.family.length > 0)
        copySpy.target = b
        copySpy.clear()
        mouseClick(findChild(b, "copyCodeButton"))
        compare(copySpy.count, 1)
        compare(copySpy.signalArguments[0][0], "print(\"<hi>\")")
        const stats = findChild(b, "statsLabel")
        verify(stats.text.indexOf("TTFT 40 ms") >= 0, stats.text)
        verify(stats.text.indexOf("33.3 t/s") >= 0, stats.text)
        verify(stats.text.indexOf("5 prompt + 12 generated") >= 0, stats.text)
    }

    function test_regenerateOnlyOnTheLastReply() {
        const b = createTemporaryObject(bubbleComponent, this, { role: "assistant", text: "x", segments: replySegments, isLast: false })
        verify(!findChild(b, "regenerateButton").visible)
        b.isLast = true
        verify(findChild(b, "regenerateButton").visible)
        regenSpy.target = b
        regenSpy.clear()
        mouseClick(findChild(b, "regenerateButton"))
        compare(regenSpy.count, 1)
        b.busy = true
        verify(!findChild(b, "regenerateButton").enabled, "no regeneration while a reply is written")
    }

    function test_editUserMessage() {
        const b = createTemporaryObject(bubbleComponent, this, { role: "user", text: "old question", row: 2 })
        compare(findChild(b, "userText").text, "old question")
        editSpy.target = b
        editSpy.clear()
        mouseClick(findChild(b, "editButton"))
        verify(b.editing)
        const area = findChild(b, "editArea")
        compare(area.text, "old question")
        area.text = "new question"
        mouseClick(findChild(b, "saveEditButton"))
        compare(editSpy.count, 1)
        compare(editSpy.signalArguments[0][0], 2)
        compare(editSpy.signalArguments[0][1], "new question")
        verify(!b.editing)
    }

    function test_errorIsShown() {
        const b = createTemporaryObject(bubbleComponent, this, { role: "assistant", text: "", errorText: "The engine stopped with an error: device lost" })
        const label = findChild(b, "errorLabel")
        verify(label.visible)
        compare(label.text, "The engine stopped with an error: device lost")
    }

    function test_alternativesArePaged() {
        const single = createTemporaryObject(bubbleComponent, this, { role: "assistant", text: "x", segments: replySegments })
        verify(!findChild(single, "variantPager").visible, "one version: no pager")
        const b = createTemporaryObject(bubbleComponent, this, { role: "assistant", text: "x", segments: replySegments,
                                                                 row: 3, variantIndex: 1, variantCount: 3 })
        verify(findChild(b, "variantPager").visible)
        compare(findChild(b, "variantLabel").text, "2/3")
        verify(findChild(b, "variantLabel").Accessible.name.indexOf("2 of 3") >= 0)
        variantSpy.target = b
        variantSpy.clear()
        mouseClick(findChild(b, "previousVariantButton"))
        compare(variantSpy.count, 1)
        compare(variantSpy.signalArguments[0][0], 3)
        compare(variantSpy.signalArguments[0][1], 0)
        mouseClick(findChild(b, "nextVariantButton"))
        compare(variantSpy.signalArguments[1][1], 2)
        // At the ends the buttons are off; while a reply is written paging is off.
        b.variantIndex = 2
        verify(!findChild(b, "nextVariantButton").enabled)
        verify(findChild(b, "previousVariantButton").enabled)
        b.busy = true
        verify(!findChild(b, "previousVariantButton").enabled)
        b.showVariant(0)
        compare(variantSpy.count, 2, "no paging while busy")
        // An edited user message pages the same way.
        const u = createTemporaryObject(bubbleComponent, this, { role: "user", text: "q", row: 0, variantIndex: 0, variantCount: 2 })
        compare(findChild(u, "variantLabel").text, "1/2")
        verify(!findChild(u, "previousVariantButton").enabled)
    }

    function test_interruptedReplySaysSo() {
        const b = createTemporaryObject(bubbleComponent, this, { role: "assistant", text: "partial", segments: replySegments,
                                                                 finishReason: "interrupted" })
        verify(findChild(b, "statsLabel") !== null)
        const stats = findChild(b, "statsLabel").parent
        verify(stats.visible, "an interrupted reply without statistics still shows why it ended")
        verify(stats.reasonText.indexOf("interrupted") >= 0)
    }

    // The actions under a message stay out of the way until the pointer is over the message or the
    // keyboard reaches one of them; under the last reply they always show.
    function test_actionsAppearOnHoverAndFocus() {
        const b = createTemporaryObject(bubbleComponent, this, { role: "user", text: "a question", row: 0, isLast: false })
        const actions = findChild(b, "messageActions")
        const copy = findChild(b, "copyButton")
        verify(actions.visible, "kept in the layout")
        copySpy.target = b
        copySpy.clear()
        mouseMove(this, 1, height - 1)  // below the message
        tryCompare(actions, "opacity", 0)
        mouseMove(b, b.width / 2, b.height / 2)
        verify(b.actionsRevealed, "hovering the message shows its actions")
        tryCompare(actions, "opacity", 1)
        mouseMove(this, 1, height - 1)
        tryCompare(actions, "opacity", 0)
        copy.forceActiveFocus(Qt.TabFocusReason)
        verify(b.actionsRevealed, "a focused action shows the row")
        tryCompare(actions, "opacity", 1)
        keyClick(Qt.Key_Space)
        compare(copySpy.count, 1, "Space on the focused action runs it")
        copy.focus = false
        const last = createTemporaryObject(bubbleComponent, this, { role: "assistant", text: "reply", segments: replySegments, isLast: true })
        verify(last.actionsRevealed, "the last reply's actions always show")
    }

    // Tab walks from one action to the next, hidden or not: the keyboard reaches every action.
    function test_tabReachesTheActions() {
        const b = createTemporaryObject(bubbleComponent, this, { role: "user", text: "q", row: 0, isLast: false })
        mouseMove(this, 1, height - 1)
        const copy = findChild(b, "copyButton")
        const edit = findChild(b, "editButton")
        copy.forceActiveFocus(Qt.TabFocusReason)
        keyClick(Qt.Key_Tab)
        verify(edit.activeFocus, "Tab goes from Copy to Edit")
        verify(b.actionsRevealed)
    }

    // A short message fits its bubble on one line: the bubble is as wide as the text, rounded up (the
    // layout rounded the text's width down and wrapped "Hello there" after "Hello").
    function test_shortMessageStaysOnOneLine_data() {
        return [{ tag: "hello", text: "Hello there" }, { tag: "longer", text: "Write a function that adds two numbers." },
                { tag: "one", text: "x" }]
    }
    function test_shortMessageStaysOnOneLine(data) {
        const b = createTemporaryObject(bubbleComponent, this, { role: "user", text: data.text, row: 0 })
        const t = findChild(b, "userText")
        compare(t.lineCount, 1, data.text)
    }
}
