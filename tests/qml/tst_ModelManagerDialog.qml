import QtQuick
import QtTest
import Trit

TestCase {
    id: testCase
    name: "ModelManagerDialog"
    when: windowShown
    width: 800
    height: 640

    readonly property var sample: [
        { id: "a", name: "Model A", sizeText: "1.11 GiB", state: "available", license: "MIT",
          quantization: "I2_S", contextLength: 4096, fits: true, fitText: "fits (needs 1.49 GiB of 7.80 GiB free)",
          description: "first", architecture: "bitnet-25", parametersText: "2.4 B" },
        { id: "b", name: "Model B", sizeText: "10 MiB", state: "downloading", percent: 42,
          progressText: "42.0% 4.2 MiB of 10 MiB, 1.0 MiB/s, 6 s left" },
        { id: "c", name: "Model C", sizeText: "10 MiB", state: "paused", percent: 10 },
        { id: "d", name: "Model D", sizeText: "10 MiB", state: "installed", fits: false, path: "/data/models/d.gguf" },
        { id: "e", name: "Model E", sizeText: "10 MiB", state: "failed",
          message: "The file was not found on the server (HTTP 404)." }
    ]

    Component {
        id: dialogComponent
        ModelManagerDialog { modelsFolder: "/data/models" }
    }
    SignalSpy { id: downloadSpy; signalName: "downloadRequested" }
    SignalSpy { id: pauseSpy; signalName: "pauseRequested" }
    SignalSpy { id: resumeSpy; signalName: "resumeRequested" }
    SignalSpy { id: cancelSpy; signalName: "cancelRequested" }
    SignalSpy { id: removeSpy; signalName: "removeRequested" }
    SignalSpy { id: importSpy; signalName: "importRequested" }
    SignalSpy { id: useSpy; signalName: "useRequested" }
    SignalSpy { id: choiceSpy; signalName: "downloadChoiceMade" }

    function openDialog() {
        const d = createTemporaryObject(dialogComponent, testCase, { entries: sample })
        verify(d !== null, "the dialog instantiates")
        for (const spy of [downloadSpy, pauseSpy, resumeSpy, cancelSpy, removeSpy, importSpy, useSpy, choiceSpy]) {
            spy.target = d
            spy.clear()
        }
        d.open()
        tryCompare(d, "opened", true)
        return d
    }

    // Scrolls the card into view (the list creates delegates only where they can be seen) and finds it.
    function card(d, id) {
        const list = findChild(d.contentItem, "modelList")
        list.positionViewAtIndex(sample.findIndex(e => e.id === id), ListView.Contain)
        return findChild(d.contentItem, "modelCard_" + id)
    }

    function button(d, id, name) {
        const card = testCase.card(d, id)
        verify(card !== null, "card " + id)
        return findChild(card, name)
    }

    function test_buttonsFollowState() {
        const d = openDialog()
        compare(button(d, "a", "downloadButton").visible, true)
        compare(button(d, "a", "pauseButton").visible, false)
        compare(button(d, "b", "pauseButton").visible, true)
        compare(button(d, "b", "cancelButton").visible, true)
        compare(button(d, "b", "downloadButton").visible, false)
        compare(button(d, "c", "resumeButton").visible, true)
        compare(button(d, "d", "removeButton").visible, true)
        compare(button(d, "e", "downloadButton").text, "Try again")
        const progress = findChild(card(d, "b"), "modelProgress")
        compare(progress.visible, true)
        compare(progress.value, 42)
        compare(findChild(card(d, "b"), "modelMessage").text, sample[1].progressText)
        compare(findChild(card(d, "e"), "modelMessage").text, sample[4].message)
        const facts = findChild(card(d, "a"), "modelFacts").text
        verify(facts.indexOf("I2_S") >= 0 && facts.indexOf("4096 tokens") >= 0
               && facts.indexOf("fits (needs 1.49 GiB of 7.80 GiB free)") >= 0, facts)
        // Issue 27: what the model is, in words.
        verify(facts.indexOf("2.4 B parameters") >= 0 && facts.indexOf("bitnet-25 architecture") >= 0
               && facts.indexOf("I2_S weights") >= 0 && facts.indexOf("licence: MIT") >= 0, facts)
        // Unknown facts are left out, not shown empty.
        const bare = findChild(card(d, "c"), "modelFacts").text
        verify(bare.indexOf("parameters") < 0 && bare.indexOf("architecture") < 0 && bare.indexOf("weights") < 0, bare)
        verify(findChild(card(d, "d"), "modelFacts").text.indexOf("does not fit the GPU") >= 0)
        verify(findChild(card(d, "c"), "modelFacts").text.indexOf("fit") < 0)  // GPU memory unknown: nothing said
        compare(findChild(d.contentItem, "modelsFolderLabel").text, "Models folder: /data/models")
    }

    function test_clicksEmitRequests() {
        const d = openDialog()
        mouseClick(button(d, "a", "downloadButton"))
        compare(downloadSpy.count, 1)
        compare(downloadSpy.signalArguments[0][0], "a")
        mouseClick(button(d, "b", "pauseButton"))
        compare(pauseSpy.signalArguments[0][0], "b")
        mouseClick(button(d, "c", "resumeButton"))
        compare(resumeSpy.signalArguments[0][0], "c")
        mouseClick(button(d, "b", "cancelButton"))
        compare(cancelSpy.signalArguments[0][0], "b")
    }

    function test_installedModelCanBeUsed() {
        const d = openDialog()
        compare(button(d, "a", "useButton").visible, false)
        compare(button(d, "d", "useButton").visible, true)
        mouseClick(button(d, "d", "useButton"))
        compare(useSpy.count, 1)
        compare(useSpy.signalArguments[0][0], "d")
        compare(useSpy.signalArguments[0][1], "/data/models/d.gguf")
    }

    function test_removeNeedsConfirmation() {
        const d = openDialog()
        mouseClick(button(d, "d", "removeButton"))
        const confirm = findChild(d, "confirmRemoveDialog")
        verify(confirm !== null)
        tryCompare(confirm, "opened", true)
        compare(removeSpy.count, 0)          // nothing removed before the answer
        confirm.reject()
        compare(removeSpy.count, 0)
        mouseClick(button(d, "d", "removeButton"))
        tryCompare(confirm, "opened", true)
        confirm.accept()
        compare(removeSpy.count, 1)
        compare(removeSpy.signalArguments[0][0], "d")
    }

    // Issue 30 #2: another file of the download's name is the user's to decide on: keep both at once,
    // replace only after a second confirmation, or leave it.
    function test_existingFileNeedsAChoice() {
        const d = openDialog()
        const ask = findChild(d, "existingFileDialog")
        const confirm = findChild(d, "confirmReplaceDialog")
        verify(ask !== null && confirm !== null)
        d.askExistingFile("a", "Model A", "a.gguf")
        tryCompare(ask, "opened", true)
        mouseClick(findChild(ask, "keepButton"))
        tryCompare(ask, "opened", false)
        compare(choiceSpy.count, 0)

        d.askExistingFile("a", "Model A", "a.gguf")
        tryCompare(ask, "opened", true)
        mouseClick(findChild(ask, "keepBothButton"))
        compare(choiceSpy.count, 1)
        compare(choiceSpy.signalArguments[0][0], "a")
        compare(choiceSpy.signalArguments[0][1], "keep-both")

        d.askExistingFile("a", "Model A", "a.gguf")
        tryCompare(ask, "opened", true)
        mouseClick(findChild(ask, "replaceButton"))
        tryCompare(confirm, "opened", true)
        compare(choiceSpy.count, 1)      // nothing replaced before the second answer
        confirm.reject()
        compare(choiceSpy.count, 1)
        d.askExistingFile("a", "Model A", "a.gguf")
        tryCompare(ask, "opened", true)
        mouseClick(findChild(ask, "replaceButton"))
        tryCompare(confirm, "opened", true)
        confirm.accept()
        compare(choiceSpy.count, 2)
        compare(choiceSpy.signalArguments[1][1], "replace")
    }

    function test_droppedFilesAreFiltered() {
        const d = openDialog()
        compare(d.handleFiles(["file:///tmp/x.gguf", "file:///tmp/notes.txt"]), 1)
        compare(importSpy.count, 1)
        compare(importSpy.signalArguments[0][0].length, 1)
        compare(importSpy.signalArguments[0][0][0], "file:///tmp/x.gguf")
        verify(d.notice.indexOf("notes.txt") >= 0, d.notice)
        compare(findChild(d.contentItem, "modelNotice").visible, true)
        compare(d.handleFiles(["https://example.org/remote.gguf"]), 0)
        compare(importSpy.count, 1)
    }
}
