import QtQuick
import QtTest
import Trit

// The chat header: the model switcher (models on disk, the loaded one ticked, "Manage models…"), the
// context meter, and the system prompt panel, each asking for changes through a signal.
TestCase {
    id: testCase
    name: "ChatHeader"
    when: windowShown
    visible: true
    width: 900
    height: 500

    Component {
        id: headerComponent
        ChatHeader {
            width: 900
            engineState: "ready"
            modelName: "BitNet b1.58 2B4T"
            modelPath: "/models/a.gguf"
            installedModels: [{ name: "BitNet b1.58 2B4T", path: "/models/a.gguf" },
                              { name: "Falcon3 1B", path: "/models/b.gguf" }]
            contextUsed: 300
            contextLength: 4096
        }
    }
    SignalSpy { id: chosenSpy; signalName: "modelChosen" }
    SignalSpy { id: manageSpy; signalName: "manageModelsRequested" }
    SignalSpy { id: promptSpy; signalName: "systemPromptEdited" }

    function make(props) {
        const h = createTemporaryObject(headerComponent, testCase, props || {})
        for (const spy of [chosenSpy, manageSpy, promptSpy]) {
            spy.target = h
            spy.clear()
        }
        return h
    }

    function test_switcherNamesTheModelInEveryState() {
        const h = make()
        const switcher = findChild(h, "modelSwitcher")
        compare(switcher.text, "BitNet b1.58 2B4T")
        h.engineState = "loading"
        h.loadingPath = "/models/b.gguf"
        compare(switcher.text, "Loading b.gguf…")
        h.engineState = "noModel"
        compare(switcher.text, "Choose a model")
        h.engineState = "error"
        compare(switcher.text, "The model could not be loaded")
    }

    function test_menuListsTheModelsOnDisk() {
        const h = make()
        mouseClick(findChild(h, "modelSwitcher"))
        tryCompare(h.modelMenu, "opened", true)
        // two models, the "none" line (hidden), a separator, "Manage models…"
        const a = h.modelMenu.itemAt(0), b = h.modelMenu.itemAt(1)
        compare(a.text, "BitNet b1.58 2B4T")
        verify(a.checked, "the loaded model is ticked")
        compare(b.text, "Falcon3 1B")
        verify(!b.checked)
        compare(h.modelMenu.itemAt(2).objectName, "noModelsItem")
        verify(!h.modelMenu.itemAt(2).visible, "models on disk: no \"none\" line")
        mouseClick(b)
        compare(chosenSpy.count, 1)
        compare(chosenSpy.signalArguments[0][0], "/models/b.gguf")
        // The loaded model again: nothing to do.
        h.modelMenu.open()
        tryCompare(h.modelMenu, "opened", true)
        mouseClick(h.modelMenu.itemAt(0))
        compare(chosenSpy.count, 1)
    }

    function test_manageModelsFromTheMenu() {
        const h = make({ installedModels: [], engineState: "noModel" })
        h.modelMenu.open()
        tryCompare(h.modelMenu, "opened", true)
        const none = h.modelMenu.itemAt(0)
        compare(none.text, "No models on disk yet")
        verify(none.visible && !none.enabled)
        const manage = h.modelMenu.itemAt(h.modelMenu.count - 1)
        compare(manage.text, "Manage models…")
        mouseClick(manage)
        compare(manageSpy.count, 1)
    }

    function test_contextMeter() {
        const h = make()
        const meter = findChild(h, "contextMeter")
        verify(meter.visible)
        compare(findChild(meter, "contextMeterLabel").text, "300 / 4.1k")
        compare(meter.level, "normal")
        h.contextUsed = 3400
        compare(meter.level, "high", "amber from 80 %")
        compare(findChild(meter, "contextMeterLabel").color, h.theme.warning)
        h.contextUsed = 4000
        compare(meter.level, "full")
        h.contextUsed = 100
        h.contextFull = true
        compare(meter.level, "full", "the controller's verdict counts")
        verify(meter.Accessible.name.indexOf("100 of 4096") >= 0, meter.Accessible.name)
        h.contextLength = 40960
        h.contextUsed = 12345
        compare(findChild(meter, "contextMeterLabel").text, "12k / 41k")
        h.engineState = "noModel"
        verify(!meter.visible, "no model, no meter")
    }

    function test_systemPromptPanel() {
        const h = make({ systemPrompt: "Be brief." })
        const button = findChild(h, "systemPromptButton")
        mouseClick(button)
        tryCompare(h.systemPromptPanel, "opened", true)
        const field = h.systemPromptPanel.editor
        compare(field.text, "Be brief.")
        verify(field.activeFocus, "the panel takes the keys")
        // Closed unchanged: nothing to save.
        keyClick(Qt.Key_Escape)
        tryCompare(h.systemPromptPanel, "visible", false)
        compare(promptSpy.count, 0)
        mouseClick(button)
        tryCompare(h.systemPromptPanel, "opened", true)
        field.selectAll()
        keyClick(Qt.Key_A)
        mouseClick(findChild(h.systemPromptPanel.contentItem, "systemPromptDone"))
        tryCompare(h.systemPromptPanel, "visible", false)
        compare(promptSpy.count, 1)
        compare(promptSpy.signalArguments[0][0], "a")
        // The button toggles: a second click closes the panel.
        mouseClick(button)
        tryCompare(h.systemPromptPanel, "opened", true)
        mouseClick(button)
        tryCompare(h.systemPromptPanel, "visible", false)
    }

    // The narrowest chat area (a 640 px window): the model's name elides, the meter and the system
    // prompt button (its icon alone) stay inside the header.
    function test_narrowHeaderKeepsEverything() {
        const h = make({ width: 375 })
        for (const name of ["modelSwitcher", "contextMeter", "systemPromptButton"]) {
            const item = findChild(h, name)
            const left = item.mapToItem(h, 0, 0).x
            verify(item.visible && left >= 0 && left + item.width <= h.width, name + " spans " + left + ".." + (left + item.width))
        }
        compare(findChild(h, "systemPromptButton").text, "")
    }
}
