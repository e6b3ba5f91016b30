import QtQuick

// The window's design in one place: colours for light and dark, the type scale, spacing, corner radii,
// motion and the icons. "system" follows the platform palette: a dark window colour means a dark desktop
// theme (Qt 6.4 has no colour-scheme query of its own). tests/qml/tst_ChatTheme.qml keeps every text
// colour at 4.5:1 or better on the surfaces it is drawn on.
QtObject {
    id: theme
    property string mode: "system"           // "system", "light" or "dark"
    property color systemWindowColor: "white"
    readonly property bool dark: mode === "dark" || (mode === "system" && systemWindowColor.hslLightness < 0.5)

    // Surfaces, from the back: the sidebar, the conversation (window), raised things (composer,
    // dialogs, menus: surface).
    readonly property color window: dark ? "#1c1d21" : "#ffffff"
    readonly property color surface: dark ? "#25272c" : "#ffffff"
    readonly property color sidebar: dark ? "#141518" : "#f3f3f5"
    readonly property color text: dark ? "#e7e7ea" : "#1b1c1f"
    readonly property color mutedText: dark ? "#a4a7ae" : "#5b5e66"
    readonly property color border: dark ? "#34373e" : "#e0e1e6"
    readonly property color accent: dark ? "#7aa2ff" : "#2f5bd3"
    readonly property color accentText: dark ? "#0d1424" : "#ffffff"  // 4.5:1 or better on accent
    // Interaction: the background of a hovered or pressed control, of the selected row, the keyboard
    // focus ring, and the veil over the window behind a modal dialog.
    readonly property color hover: dark ? "#2c2e34" : "#e7e8ec"
    readonly property color pressed: dark ? "#363943" : "#d9dbe1"
    readonly property color selected: dark ? "#27324d" : "#dde5fa"
    readonly property color focusRing: accent
    readonly property color scrim: dark ? "#99000000" : "#66000000"
    // The conversation: the user's messages in a tinted bubble, replies on the window itself.
    readonly property color userBubble: dark ? "#2a3552" : "#e9effd"
    readonly property color assistantBubble: window
    readonly property color codeBackground: dark ? "#131417" : "#f4f5f7"
    readonly property color warning: dark ? "#f0b45a" : "#8a5100"
    readonly property color error: dark ? "#ff7b72" : "#b3261e"
    readonly property color errorBackground: dark ? "#3b2224" : "#fdecea"
    // Good news on a tinted badge (a model that fits the GPU).
    readonly property color success: dark ? "#8fd694" : "#1a6b2e"
    readonly property color successBackground: dark ? "#1f3326" : "#e6f4ea"
    readonly property color sparkline: dark ? "#6fd3a4" : "#1f8a5b"
    // Code in replies, by token kind (CodeDocument's colors); each 4.5:1 or better on codeBackground.
    readonly property var codeColors: dark
        ? { keyword: "#d09cff", type: "#5fd0d8", function: "#82aaff", string: "#8fd694", number: "#f0a66b",
            comment: "#8f949e", meta: "#ff9ac1", added: "#8fd694", removed: "#ff8b85" }
        : { keyword: "#8b2fb0", type: "#0b6e79", function: "#2451b8", string: "#1a7431", number: "#a34a00",
            comment: "#5f6470", meta: "#9a3b5c", added: "#1a7431", removed: "#b3261e" }

    // Type scale, in points from the font size setting: caption (status bar, labels on controls), small
    // (secondary text), body, subtitle (section headings), title (dialog titles), headline (the empty
    // window's heading).
    property int fontSize: 11
    readonly property int fontCaption: Math.max(7, fontSize - 2)
    readonly property int fontSmall: Math.max(8, fontSize - 1)
    readonly property int fontBody: fontSize
    readonly property int fontSubtitle: fontSize + 1
    readonly property int fontTitle: Math.round(fontSize * 1.35)
    readonly property int fontHeadline: Math.round(fontSize * 1.8)
    readonly property string monoFamily: "monospace"

    // Spacing (a 4-pixel grid) and corner radii.
    readonly property int spaceXs: 4
    readonly property int spaceS: 8
    readonly property int spaceM: 12
    readonly property int spaceL: 16
    readonly property int spaceXl: 24
    readonly property int radiusS: 6
    readonly property int radiusM: 10
    readonly property int radiusL: 14
    // The conversation and the composer keep a readable line length on wide windows.
    readonly property int readingWidth: 820

    // Motion: short, and none at all with "Reduce motion" (Settings → Appearance).
    property bool reduceMotion: false
    readonly property int durationFast: reduceMotion ? 0 : 100
    readonly property int durationNormal: reduceMotion ? 0 : 180

    // An icon of qml/icons by its Adwaita name, without the "-symbolic.svg".
    function icon(name) { return "qrc:/qt/qml/Trit/icons/" + name + "-symbolic.svg" }

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
