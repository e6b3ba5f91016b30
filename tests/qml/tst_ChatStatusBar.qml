import QtQuick
import QtTest
import Trit

// The status bar's live readouts: prompt progress with its speed, then tokens/s with a sparkline.
TestCase {
    id: testCase
    name: "ChatStatusBar"
    when: windowShown
    visible: true  // TestCase is hidden by default; these tests click and check visibility
    width: 900
    height: 60

    QtObject {
        id: fakeEngine
        property string state: "ready"
        property string modelName: "tiny"
        property string deviceName: "llvmpipe"
        property string memoryText: "12 MiB of 1 GiB GPU memory in use"
        property string loadingPath: ""
        property int contextLength: 4096
    }
    QtObject {
        id: fakeChat
        property string phase: "idle"
        property int promptDone: 0
        property int promptTotal: 0
        property double promptTokensPerSecond: 0
        property double tokensPerSecond: 0
        property int replyTokens: 0
        property var speedHistory: []
        property int contextUsed: 0
        property bool contextFull: false
    }
    QtObject {
        id: fakeApi
        property string state: "off"
        property string statusText: "Off"
        property string url: ""
    }
    Component {
        id: apiBarComponent
        StatusBar { width: 900; engine: fakeEngine; chat: fakeChat; apiServer: fakeApi }
    }
    Component {
        id: barComponent
        StatusBar { width: 900; engine: fakeEngine; chat: fakeChat }
    }

    function test_readoutsFollowThePhase() {
        const bar = createTemporaryObject(barComponent, testCase)
        compare(findChild(bar, "modelLabel").text, "tiny on llvmpipe")
        verify(findChild(bar, "memoryLabel").text.indexOf("GPU memory") > 0)
        verify(!findChild(bar, "promptProgress").visible)
        fakeChat.phase = "prompt"
        fakeChat.promptDone = 256
        fakeChat.promptTotal = 1024
        fakeChat.promptTokensPerSecond = 812.4
        verify(findChild(bar, "promptProgress").visible)
        compare(findChild(bar, "promptProgress").value, 0.25)
        compare(findChild(bar, "promptRateLabel").text, "prompt 256/1024 · 812 t/s")
        fakeChat.phase = "reply"
        fakeChat.tokensPerSecond = 41.26
        fakeChat.replyTokens = 99
        fakeChat.speedHistory = [30, 40, 41]
        verify(!findChild(bar, "promptProgress").visible)
        verify(findChild(bar, "liveSparkline").visible)
        compare(findChild(bar, "speedLabel").text, "41.3 t/s · 99 tokens")
        fakeChat.phase = "idle"
        verify(!findChild(bar, "speedLabel").visible)
        fakeChat.contextUsed = 300
        compare(findChild(bar, "contextLabel").text, "context 300 / 4096")
    }

    function test_engineStates() {
        const bar = createTemporaryObject(barComponent, testCase)
        fakeEngine.state = "error"
        compare(findChild(bar, "modelLabel").text, "The model could not be loaded")
        fakeEngine.state = "noModel"
        compare(findChild(bar, "modelLabel").text, "No model")
        fakeEngine.state = "ready"
    }

    // The local API server shows in the window while it is on: its URL, or what went wrong.
    function test_apiServerState() {
        const bar = createTemporaryObject(apiBarComponent, testCase)
        const label = findChild(bar, "apiServerLabel")
        compare(label.visible, false)
        fakeApi.state = "listening"
        fakeApi.url = "http://127.0.0.1:8080"
        fakeApi.statusText = "Listening on http://127.0.0.1:8080, http://[::1]:8080"
        compare(label.visible, true)
        compare(label.text, "API: http://127.0.0.1:8080")
        fakeApi.state = "error"
        fakeApi.url = ""
        fakeApi.statusText = "Not started: port 8080 is in use"
        compare(label.text, "API server: Not started: port 8080 is in use")
        compare(label.color, bar.theme.error)
        fakeApi.state = "off"
        compare(label.visible, false)
        // Without a server object (tests, a bare QML load) nothing shows.
        compare(findChild(createTemporaryObject(barComponent, testCase), "apiServerLabel").visible, false)
    }
}
