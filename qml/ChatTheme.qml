import QtQuick

// The colours of the chat window, light or dark. "system" follows the platform palette: a dark window
// colour means a dark desktop theme (Qt 6.4 has no colour-scheme query of its own).
QtObject {
    id: theme
    property string mode: "system"           // "system", "light" or "dark"
    property color systemWindowColor: "white"
    readonly property bool dark: mode === "dark" || (mode === "system" && systemWindowColor.hslLightness < 0.5)

    readonly property color window: dark ? "#1e1f22" : "#f7f7f8"
    readonly property color surface: dark ? "#2b2d31" : "#ffffff"
    readonly property color sidebar: dark ? "#17181a" : "#eeeef0"
    readonly property color text: dark ? "#e6e6e8" : "#1d1d1f"
    readonly property color mutedText: dark ? "#a0a2a8" : "#5f6168"
    readonly property color border: dark ? "#3a3c42" : "#d9d9de"
    readonly property color accent: dark ? "#7aa2ff" : "#2f5bd3"
    readonly property color accentText: dark ? "#0d1424" : "#ffffff"  // 4.5:1 or better on accent
    readonly property color userBubble: dark ? "#2f3d5c" : "#dfe8ff"
    readonly property color assistantBubble: dark ? "#26282c" : "#ffffff"
    readonly property color codeBackground: dark ? "#141517" : "#f1f2f4"
    readonly property color warning: dark ? "#f0b45a" : "#9a5b00"
    readonly property color error: dark ? "#ff7b72" : "#b3261e"
    readonly property color errorBackground: dark ? "#3b2224" : "#fdecea"
    readonly property color sparkline: dark ? "#6fd3a4" : "#1f8a5b"
    property int fontSize: 11                // points, from the settings
    readonly property string monoFamily: "monospace"

    // Readout formatting, shared by the status bar and the message statistics.
    function rate(v) {
        if (!(v > 0))
            return "–"
        return v >= 100 ? Math.round(v).toString() : v.toFixed(1)
    }
    function ms(v) {
        if (!(v >= 0))
            return "–"
        return v >= 1000 ? (v / 1000).toFixed(2) + " s" : Math.round(v) + " ms"
    }
}
