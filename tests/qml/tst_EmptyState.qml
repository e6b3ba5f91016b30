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
}
