import QtQuick
import QtTest
import Trit

// The settings' models folder: shown from the model manager's bridge, changed by typing a path (or by the
// folder dialog's URL), a refused folder keeps the old one and shows the reason; the GPU memory line.
// The bridge itself (checks, persistence, rescan) is tested in tests/app/tst_model_manager_bridge.cpp.
TestCase {
    id: testCase
    name: "SettingsDialog"
    when: windowShown
    width: 700
    height: 1100  // the whole dialog on screen: the tests click controls near its end

    // Stands in for ModelManagerBridge: the same properties and setModelsDir() contract.
    Component {
        id: fakeModelsComponent
        QtObject {
            property string modelsFolder: "/data/old"
            property string modelsFolderError: ""
            property string gpuSummary: "Fake GPU: 2.00 GiB of 8.00 GiB GPU memory free."
            property string lastAsked: ""
            property int asked: 0
            property int refreshed: 0
            function refreshGpu() { refreshed++ }
            function setModelsDir(p) {
                asked++
                lastAsked = p
                const path = p.startsWith("file://") ? p.substring(7) : p
                if (path.indexOf("missing") >= 0) {
                    modelsFolderError = "Cannot use " + path + " as the models folder: it does not exist. The models folder stays "
                        + modelsFolder + "."
                    return false
                }
                modelsFolder = path
                modelsFolderError = ""
                return true
            }
        }
    }
    // Stand-ins for AppSettings' API server settings and for ApiServer (tested for real in
    // tests/app/tst_api_server.cpp): the dialog writes the settings, and shows the server's state.
    Component {
        id: fakeSettingsComponent
        QtObject {
            property double temperature: 0.6
            property int topK: 40
            property double topP: 0.95
            property double minP: 0.05
            property double repeatPenalty: 1.1
            property int maxTokens: 2048
            property string systemPrompt: ""
            property string backend: "vulkan"
            property int device: -1
            property int contextLength: 0
            property string theme: "system"
            property int fontSize: 11
            property bool reduceMotion: false
            property bool apiServerEnabled: false
            property int apiServerPort: 8080
            property string apiServerKey: ""
            property bool apiServerAllowOthers: false
        }
    }
    Component {
        id: fakeApiComponent
        QtObject {
            property string state: "off"
            property string statusText: "Off"
            property string url: ""
            property int copied: 0
            function copyUrl() { copied++ }
            function generateKey() { return "0123456789abcdef0123456789abcdef" }
        }
    }
    Component {
        id: dialogComponent
        SettingsDialog {}
    }

    function openDialog(models) {
        const d = createTemporaryObject(dialogComponent, testCase, models ? { models: models } : {})
        verify(d !== null, "the dialog instantiates")
        d.open()
        tryCompare(d, "opened", true)
        return d
    }

    function test_folderIsShownAndChanged() {
        const models = createTemporaryObject(fakeModelsComponent, testCase)
        const d = openDialog(models)
        compare(models.refreshed, 1, "opening asks the GPU for its free memory again")
        const field = findChild(d.contentItem, "modelsFolderField")
        verify(field !== null)
        compare(field.visible, true)
        compare(field.text, "/data/old")
        compare(findChild(d.contentItem, "gpuMemoryLabel").text, "Fake GPU: 2.00 GiB of 8.00 GiB GPU memory free.")
        const error = findChild(d.contentItem, "modelsFolderError")
        compare(error.visible, false)

        field.forceActiveFocus()
        field.selectAll()
        keyClick(Qt.Key_Delete)
        for (const c of "/data/new") keyClick(c)
        keyClick(Qt.Key_Return)
        compare(models.asked, 1)
        compare(models.lastAsked, "/data/new")
        compare(models.modelsFolder, "/data/new")
        compare(field.text, "/data/new")
        compare(error.visible, false)
        keyClick(Qt.Key_Return)       // unchanged text: not asked again
        compare(models.asked, 1)
    }

    function test_refusedFolderKeepsTheOldOne() {
        const models = createTemporaryObject(fakeModelsComponent, testCase)
        const d = openDialog(models)
        const field = findChild(d.contentItem, "modelsFolderField")
        field.forceActiveFocus()
        field.text = "/data/missing"
        keyClick(Qt.Key_Return)
        compare(models.asked, 1)
        compare(field.text, "/data/old", "the field shows the folder still in use")
        const error = findChild(d.contentItem, "modelsFolderError")
        compare(error.visible, true)
        verify(error.text.indexOf("/data/missing") >= 0 && error.text.indexOf("stays /data/old") >= 0, error.text)
    }

    function test_browseOpensTheFolderDialog() {
        const models = createTemporaryObject(fakeModelsComponent, testCase)
        const d = openDialog(models)
        const browse = findChild(d.contentItem, "modelsFolderBrowse")
        verify(browse !== null)
        mouseClick(browse)
        tryCompare(d.modelsFolderDialog, "visible", true)
        d.modelsFolderDialog.reject()
        compare(models.asked, 0)
        // What the folder dialog hands over on "accept" is a URL; it goes to the bridge as it is.
        verify(d.chooseModelsFolder(Qt.url("file:///data/picked")))
        compare(models.lastAsked, "file:///data/picked")
        compare(findChild(d.contentItem, "modelsFolderField").text, "/data/picked")
    }

    function test_withoutModelManagerNoFolderRow() {
        const d = openDialog(null)
        compare(findChild(d.contentItem, "modelsFolderField").visible, false)
        compare(findChild(d.contentItem, "gpuMemoryLabel").visible, false)
    }

    function test_apiServerControls() {
        const settings = createTemporaryObject(fakeSettingsComponent, testCase)
        const api = createTemporaryObject(fakeApiComponent, testCase)
        const d = createTemporaryObject(dialogComponent, testCase, { settings: settings, apiServer: api })
        d.open()
        tryCompare(d, "opened", true)
        const toggle = findChild(d.contentItem, "apiServerSwitch")
        const port = findChild(d.contentItem, "apiPortSpin")
        const key = findChild(d.contentItem, "apiKeyField")
        const others = findChild(d.contentItem, "apiAllowOthersCheck")
        const status = findChild(d.contentItem, "apiServerStatus")
        const copy = findChild(d.contentItem, "apiCopyUrl")
        compare(toggle.checked, false)
        compare(port.value, 8080)
        compare(port.displayText, "8080")  // no group separator in a port
        compare(port.from, 1)
        compare(port.to, 65535)
        compare(key.text, "")
        compare(others.checked, false)
        compare(status.text, "Off")
        compare(copy.visible, false)

        toggle.toggle()
        toggle.toggled()
        compare(settings.apiServerEnabled, true)
        port.value = 9090
        port.valueModified()
        compare(settings.apiServerPort, 9090)
        others.toggle()
        others.toggled()
        compare(settings.apiServerAllowOthers, true)

        // The server refuses other machines without a key: its message is shown as an error.
        api.state = "error"
        api.statusText = "Not started: other machines may connect only with an API key."
        compare(status.text, api.statusText)
        compare(status.color, d.theme.error)

        key.forceActiveFocus()
        for (const c of "k3y") keyClick(c)
        keyClick(Qt.Key_Return)
        compare(settings.apiServerKey, "k3y")
        mouseClick(findChild(d.contentItem, "apiKeyGenerate"))
        compare(settings.apiServerKey, "0123456789abcdef0123456789abcdef")
        compare(key.text, settings.apiServerKey)

        api.state = "listening"
        api.url = "http://127.0.0.1:9090"
        api.statusText = "Listening on http://127.0.0.1:9090"
        compare(status.color, d.theme.mutedText)
        compare(copy.visible, true)
        mouseClick(copy)
        compare(api.copied, 1)
    }

    // "Reduce motion" is a setting of its own, stored when toggled and shown as stored.
    function test_reduceMotionIsASetting() {
        const settings = createTemporaryObject(fakeSettingsComponent, testCase)
        const d = createTemporaryObject(dialogComponent, testCase, { settings: settings })
        d.open()
        tryCompare(d, "opened", true)
        const check = findChild(d.contentItem, "reduceMotionCheck")
        verify(check !== null)
        compare(check.checked, false)
        check.toggle()
        check.toggled()
        compare(settings.reduceMotion, true)
        settings.reduceMotion = false
        compare(check.checked, false, "the box follows the stored value")
    }
}
