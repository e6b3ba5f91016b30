import QtQuick
import QtTest
import Trit

// Every dialog of the window is modal over a dimmed window: what lies behind it is darkened by the
// theme's scrim (before, the window behind the model manager stayed as bright as before). Its fade in
// is short, and none with "Reduce motion".
TestCase {
    id: testCase
    name: "Dialogs"
    when: windowShown
    visible: true
    width: 800
    height: 700

    ChatTheme { id: lightTheme; mode: "light" }
    ChatTheme { id: calmTheme; mode: "dark"; reduceMotion: true }

    Rectangle { id: backdrop; anchors.fill: parent; color: lightTheme.window }

    Component { id: settingsComponent; SettingsDialog {} }
    Component { id: aboutComponent; AboutDialog {} }
    // The model manager is a page (issue 29); its confirmations are the dialogs.
    Component { id: modelsComponent; ModelManagerPage {} }

    function brightness(image, x, y) {
        const c = image.pixel(x, y)
        return c.r + c.g + c.b
    }

    function test_modalAndDimmed_data() {
        return [{ tag: "settings", component: settingsComponent },
                { tag: "about", component: aboutComponent },
                { tag: "models: remove", component: modelsComponent, inner: "confirmRemoveDialog" },
                { tag: "models: existing file", component: modelsComponent, inner: "existingFileDialog" }]
    }
    function test_modalAndDimmed(data) {
        const before = grabImage(backdrop)
        const made = createTemporaryObject(data.component, testCase, { theme: lightTheme, width: 300, height: 200 })
        const d = data.inner ? findChild(made, data.inner) : made
        verify(d !== null)
        verify(d.modal, "modal")
        verify(d.dim, "dims the window")
        d.open()
        tryCompare(d, "opened", true)
        // (grabImage renders the window as it is now; no frame needs waiting for.)
        const after = grabImage(backdrop)
        // A corner far from the centred dialog: darkened by the scrim, not by the dialog itself.
        verify(brightness(after, 5, 5) < brightness(before, 5, 5) * 0.8,
               "the window behind is dimmed: " + before.pixel(5, 5) + " -> " + after.pixel(5, 5))
        d.close()
        tryCompare(d, "visible", false)
    }

    function test_reducedMotionHasNoTransition() {
        const d = createTemporaryObject(settingsComponent, testCase, { theme: lightTheme })
        verify(d.fadeIn.duration > 0, "a short fade by default")
        verify(d.fadeIn.duration <= 250)
        d.theme = calmTheme
        compare(d.fadeIn.duration, 0)
        // And it opens at once.
        d.open()
        tryCompare(d, "opened", true)
        compare(d.opacity, 1)
        d.close()
    }
}
