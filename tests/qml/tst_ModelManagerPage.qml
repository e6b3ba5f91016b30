import QtQuick
import QtTest
import Trit

// The model manager page (qml/ModelManagerPage.qml, ModelCard.qml) with rows as the bridge makes them:
// the installed models under "On this computer" with their file, the others under "Available to
// download"; each card's facts, fit badge, progress figures and buttons follow its state, and every
// button emits its request. The page against the real bridge and a local HTTP server (downloads, pause
// and resume, import): tests/app/tst_model_manager_page.cpp.
TestCase {
    id: testCase
    name: "ModelManagerPage"
    when: windowShown
    visible: true
    width: 1000
    height: 700

    readonly property var sample: [
        { id: "a", name: "Model A", sizeText: "1.11 GiB", state: "available", license: "MIT",
          quantization: "I2_S", contextLength: 4096, fits: true, fitText: "fits (needs 1.49 GiB of 7.80 GiB free)",
          description: "first", architecture: "bitnet-25", parametersText: "2.4 B" },
        { id: "b", name: "Model B", sizeText: "10 MiB", state: "downloading", percent: 42,
          receivedText: "4.20 MiB of 10.0 MiB", speedText: "1.00 MiB/s", timeLeftText: "6 s left",
          message: "Downloading." },
        { id: "c", name: "Model C", sizeText: "10 MiB", state: "paused", percent: 10, receivedText: "1.00 MiB of 10.0 MiB",
          message: "Paused at 1.00 MiB." },
        { id: "d", name: "Model D", sizeText: "10 MiB", state: "installed", fits: false,
          fitText: "does not fit (needs 9 GiB, only 2 GiB free)", path: "/data/models/d.gguf" },
        { id: "e", name: "Model E", sizeText: "10 MiB", state: "failed",
          message: "The file was not found on the server (HTTP 404)." },
        { id: "junk.gguf", name: "junk.gguf", state: "failed", inCatalog: false,
          message: "not a GGUF file" }
    ]

    Component {
        id: pageComponent
        ModelManagerPage { modelsFolder: "/data/models"; width: testCase.width; height: testCase.height }
    }
    SignalSpy { id: downloadSpy; signalName: "downloadRequested" }
    SignalSpy { id: pauseSpy; signalName: "pauseRequested" }
    SignalSpy { id: resumeSpy; signalName: "resumeRequested" }
    SignalSpy { id: cancelSpy; signalName: "cancelRequested" }
    SignalSpy { id: removeSpy; signalName: "removeRequested" }
    SignalSpy { id: importSpy; signalName: "importRequested" }
    SignalSpy { id: useSpy; signalName: "useRequested" }
    SignalSpy { id: choiceSpy; signalName: "downloadChoiceMade" }
    SignalSpy { id: folderSpy; signalName: "openFolderRequested" }
    SignalSpy { id: backSpy; signalName: "backRequested" }

    function openPage() {
        const d = createTemporaryObject(pageComponent, testCase, { entries: sample, installedCount: 1 })
        verify(d !== null, "the page instantiates")
        for (const spy of [downloadSpy, pauseSpy, resumeSpy, cancelSpy, removeSpy, importSpy, useSpy, choiceSpy,
                           folderSpy, backSpy]) {
            spy.target = d
            spy.clear()
        }
        wait(0)
        return d
    }

    // The card of `id` where it is shown, scrolled into view.
    function card(d, id) {
        const c = d.cardFor(id)
        verify(c !== null, "card " + id)
        verify(d.reveal(id))
        const flick = findChild(d, "modelScroll").contentItem
        const top = c.mapToItem(flick, 0, 0).y
        verify(top >= 0 && top + c.height <= flick.height, "card " + id + " is in view")
        return c
    }

    function button(d, id, name) {
        return findChild(card(d, id), name)
    }

    // Installed models and the folder's other files are on this computer; the rest can be downloaded.
    function test_sections() {
        const d = openPage()
        compare(d.cardFor("d").objectName, "installedCard_d")
        compare(d.cardFor("junk.gguf").objectName, "installedCard_junk.gguf")
        for (const id of ["a", "b", "c", "e"])
            compare(d.cardFor(id).objectName, "catalogCard_" + id)
        compare(findChild(d, "noModelsYet").visible, false)
        compare(findChild(card(d, "d"), "modelPath").text, "/data/models/d.gguf")
        mouseClick(button(d, "d", "showFileButton"))
        compare(folderSpy.count, 1)
        compare(folderSpy.signalArguments[0][0].toString(), "file:///data/models")
        findChild(d, "modelScroll").contentItem.contentY = 0
        wait(0)
        mouseClick(findChild(d, "openFolderButton"))
        compare(folderSpy.count, 2)
        compare(folderSpy.signalArguments[1][0].toString(), "file:///data/models")
        compare(findChild(d, "modelsFolderLabel").text, "Models folder: /data/models")
        // A file of the folder the engine cannot open: removable, not downloadable.
        compare(button(d, "junk.gguf", "removeButton").visible, true)
        compare(button(d, "junk.gguf", "downloadButton").visible, false)
        d.installedCount = 0
        compare(findChild(d, "noModelsYet").visible, true)
        mouseClick(findChild(d, "backButton"))
        compare(backSpy.count, 1)
    }

    function test_fitBadge() {
        const d = openPage()
        const fits = findChild(card(d, "a"), "fitBadge")
        compare(fits.visible, true)
        compare(findChild(fits, "fitBadgeLabel").text, "Fits your GPU")
        compare(fits.Accessible.description, sample[0].fitText)
        const tooBig = findChild(card(d, "d"), "fitBadge")
        compare(tooBig.visible, true)
        compare(findChild(tooBig, "fitBadgeLabel").text, "Too large for your GPU")
        compare(findChild(card(d, "c"), "fitBadge").visible, false)  // GPU memory unknown: no badge
    }

    function test_downloadFigures() {
        const d = openPage()
        const b = card(d, "b")
        compare(findChild(b, "modelProgress").visible, true)
        compare(findChild(b, "modelProgress").value, 42)
        compare(findChild(b, "modelReceived").text, "42% · 4.20 MiB of 10.0 MiB")
        compare(findChild(b, "modelSpeed").text, "1.00 MiB/s")
        compare(findChild(b, "modelTimeLeft").text, "6 s left")
        compare(findChild(b, "modelMessage").visible, false)  // the figures say it while downloading
        const c = card(d, "c")
        compare(findChild(c, "modelSpeed").visible, false)
        compare(findChild(c, "modelMessage").text, "Paused at 1.00 MiB.")
        compare(findChild(card(d, "a"), "modelProgress").visible, false)
    }

    function test_buttonsFollowState() {
        const d = openPage()
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
        verify(findChild(card(d, "d"), "modelFacts").text.indexOf("does not fit (needs 9 GiB") >= 0)
        verify(findChild(card(d, "c"), "modelFacts").text.indexOf("fit") < 0)  // GPU memory unknown: nothing said
    }

    function test_clicksEmitRequests() {
        const d = openPage()
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
        const d = openPage()
        compare(button(d, "a", "useButton").visible, false)
        compare(button(d, "d", "useButton").visible, true)
        mouseClick(button(d, "d", "useButton"))
        compare(useSpy.count, 1)
        compare(useSpy.signalArguments[0][0], "d")
        compare(useSpy.signalArguments[0][1], "/data/models/d.gguf")
    }

    function test_removeNeedsConfirmation() {
        const d = openPage()
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
        const d = openPage()
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
        const d = openPage()
        compare(d.handleFiles(["file:///tmp/x.gguf", "file:///tmp/notes.txt"]), 1)
        compare(importSpy.count, 1)
        compare(importSpy.signalArguments[0][0].length, 1)
        compare(importSpy.signalArguments[0][0][0], "file:///tmp/x.gguf")
        verify(d.notice.indexOf("notes.txt") >= 0, d.notice)
        compare(findChild(d, "modelNotice").visible, true)
        compare(d.handleFiles(["https://example.org/remote.gguf"]), 0)
        compare(importSpy.count, 1)
        // A path as typed or handed over by a file dialog on some platforms: a file URL from here on.
        compare(d.handleFiles(["/tmp/my model.gguf"]), 1)
        compare(importSpy.signalArguments[1][0][0], "file:///tmp/my%20model.gguf")
        compare(d.notice, "")
    }
}
