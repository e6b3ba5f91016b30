import QtQuick
import QtTest
import Trit

// The first start's welcome: two lines on what Trit is, the GPU (or why none), the recommended model
// and one button that downloads it, shows the progress, asks for it to be loaded and hands over once
// it is; a failure says why and offers to try again. tests/app/tst_first_run.cpp runs the same flow on
// the real bridges with a local HTTP server.
TestCase {
    id: testCase
    name: "FirstRun"
    when: windowShown
    visible: true
    width: 900
    height: 700

    readonly property var recommended: ({ id: "bitnet", name: "BitNet b1.58 2B4T", sizeText: "1.11 GiB",
                                          parametersText: "2.4 B", license: "MIT",
                                          fitText: "fits (needs 1.5 GiB of 7.5 GiB free)" })
    Component {
        id: firstRunComponent
        FirstRun {
            width: 900
            height: 700
            gpuSummary: "Fake GPU: 7.5 GiB of 8 GiB GPU memory free."
            recommended: testCase.recommended
            entry: ({ id: "bitnet", state: "available" })
        }
    }
    SignalSpy { id: downloadSpy; signalName: "downloadRequested" }
    SignalSpy { id: loadSpy; signalName: "loadRequested" }
    SignalSpy { id: readySpy; signalName: "ready" }
    SignalSpy { id: manageSpy; signalName: "manageModelsRequested" }

    function make(props) {
        const f = createTemporaryObject(firstRunComponent, testCase, props || {})
        for (const spy of [downloadSpy, loadSpy, readySpy, manageSpy]) {
            spy.target = f
            spy.clear()
        }
        return f
    }

    function test_welcomeSaysWhatTritIsAndWhichGpu() {
        const f = make()
        compare(findChild(f, "welcomeHeading").text, "Welcome to Trit")
        compare(findChild(f, "welcomeText").text.split("\n").length, 2, "two lines")
        compare(findChild(f, "gpuLine").text, "Fake GPU: 7.5 GiB of 8 GiB GPU memory free.")
        compare(findChild(f, "recommendedName").text, "Recommended: BitNet b1.58 2B4T")
        verify(findChild(f, "recommendedFacts").text.indexOf("fits (needs 1.5 GiB") >= 0)
        compare(findChild(f, "firstRunButton").text, "Download BitNet b1.58 2B4T and start")
    }

    function test_noGpuSaysWhy() {
        const f = make({ gpuSummary: "", gpuError: "no Vulkan device found." })
        const line = findChild(f, "gpuLine")
        verify(line.text.startsWith("No GPU found: no Vulkan device found."), line.text)
        compare(line.color, f.theme.warning)
        f.gpuError = ""
        compare(line.text, "Looking for your GPU…")
    }

    function test_oneButtonDownloadsLoadsAndHandsOver() {
        const f = make()
        mouseClick(findChild(f, "firstRunButton"))
        compare(downloadSpy.count, 1)
        compare(downloadSpy.signalArguments[0][0], "bitnet")
        verify(!findChild(f, "firstRunButton").visible, "one press is enough")
        f.entry = { id: "bitnet", state: "downloading", percent: 42, progressText: "470 MiB of 1.11 GiB · 20 MiB/s" }
        compare(f.phase, "downloading")
        const progress = findChild(f, "firstRunProgress")
        verify(progress.visible)
        compare(progress.value, 42)
        compare(findChild(f, "firstRunStatus").text, "470 MiB of 1.11 GiB · 20 MiB/s")
        f.entry = { id: "bitnet", state: "installed", path: "/models/bitnet.gguf" }
        compare(loadSpy.count, 1)
        compare(loadSpy.signalArguments[0][0], "/models/bitnet.gguf")
        f.engineState = "loading"
        compare(f.phase, "loading")
        f.entry = { id: "bitnet", state: "installed", path: "/models/bitnet.gguf" }   // a rescan: no second load
        compare(loadSpy.count, 1)
        compare(readySpy.count, 0)
        f.engineState = "ready"
        compare(readySpy.count, 1)
    }

    function test_failureSaysWhyAndRetries() {
        const f = make()
        f.start()
        f.entry = { id: "bitnet", state: "failed", message: "The server answered 404." }
        compare(f.phase, "failed")
        const status = findChild(f, "firstRunStatus")
        compare(status.text, "The server answered 404.")
        compare(status.color, f.theme.error)
        const button = findChild(f, "firstRunButton")
        compare(button.text, "Try again")
        mouseClick(button)
        compare(downloadSpy.count, 2)
        // A model that downloads but does not load: the engine's message, and again.
        f.entry = { id: "bitnet", state: "installed", path: "/models/bitnet.gguf" }
        f.engineState = "error"
        f.engineError = "not a GGUF file"
        compare(f.phase, "error")
        compare(status.text, "not a GGUF file")
        mouseClick(button)
        compare(loadSpy.count, 2, "trying again loads the file again")
    }

    function test_installedAlreadyStartsWithoutDownload() {
        const f = make({ entry: { id: "bitnet", state: "installed", path: "/m/b.gguf" } })
        compare(findChild(f, "firstRunButton").text, "Start with BitNet b1.58 2B4T")
        mouseClick(findChild(f, "firstRunButton"))
        compare(downloadSpy.count, 0)
        compare(loadSpy.count, 1)
    }

    function test_nothingFitsPointsToTheModelManager() {
        const f = make({ recommended: ({}) })
        verify(findChild(f, "noRecommendation").visible)
        verify(!findChild(f, "firstRunButton").visible)
        mouseClick(findChild(f, "firstRunManageButton"))
        compare(manageSpy.count, 1)
    }
}
