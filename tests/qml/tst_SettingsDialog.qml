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
    height: 900

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
}
