import QtQuick
import QtTest
import Trit

TestCase {
    name: "Sidebar"
    when: windowShown
    width: 300
    height: 400

    Component {
        id: sidebarComponent
        Sidebar { width: 240; height: 400 }
    }
    SignalSpy { id: aboutSpy; signalName: "aboutRequested" }
    SignalSpy { id: settingsSpy; signalName: "settingsRequested" }
    SignalSpy { id: modelsSpy; signalName: "modelManagerRequested" }

    function test_buttonsRequestTheirDialogs() {
        const bar = createTemporaryObject(sidebarComponent, this)
        verify(bar !== null)
        aboutSpy.target = bar
        settingsSpy.target = bar
        modelsSpy.target = bar
        const about = findChild(bar, "aboutButton")
        verify(about !== null, "the sidebar offers About Trit")
        compare(about.text, "About Trit")
        verify(about.Accessible.name.length > 0)
        about.clicked()
        compare(aboutSpy.count, 1)
        compare(settingsSpy.count, 0, "About does not open the settings")
        findChild(bar, "settingsButton").clicked()
        compare(settingsSpy.count, 1)
        findChild(bar, "modelManagerButton").clicked()
        compare(modelsSpy.count, 1)
        compare(aboutSpy.count, 1)
    }
}
