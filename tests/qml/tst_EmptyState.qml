import QtQuick
import QtTest
import Trit

TestCase {
    name: "EmptyState"
    when: windowShown
    width: 800
    height: 600

    Component {
        id: emptyStateComponent
        EmptyState { width: 800; height: 600 }
    }

    function test_headingIsVisibleAndAccessible() {
        const view = createTemporaryObject(emptyStateComponent, this)
        verify(view !== null, "EmptyState must instantiate")
        const heading = findChild(view, "emptyStateHeading")
        verify(heading !== null, "heading label exists")
        compare(heading.text, "No model loaded")
        verify(heading.implicitWidth > 0, "heading has rendered text")
        compare(heading.Accessible.role, Accessible.Heading)
    }

    function test_headingCanBeReplaced() {
        const view = createTemporaryObject(emptyStateComponent, this, { heading: "Loading…" })
        compare(findChild(view, "emptyStateHeading").text, "Loading…")
    }

    // In the narrowest window (640 px, 375 for the chat) the two buttons stack instead of running off the
    // right edge, where the heading and the first button were cut off.
    function test_narrowWindowKeepsTheButtonsInside() {
        const view = createTemporaryObject(emptyStateComponent, this, { width: 375, height: 480 })
        for (const name of ["openModelManagerButton", "openModelFileButton", "emptyStateHeading"]) {
            const item = findChild(view, name)
            const left = item.mapToItem(view, 0, 0).x
            verify(left >= 0 && left + item.width <= view.width, name + " spans " + left + ".." + (left + item.width))
        }
        const wide = createTemporaryObject(emptyStateComponent, this)
        const a = findChild(wide, "openModelManagerButton"), b = findChild(wide, "openModelFileButton")
        compare(a.mapToItem(wide, 0, 0).y, b.mapToItem(wide, 0, 0).y, "side by side where there is room")
    }
}
