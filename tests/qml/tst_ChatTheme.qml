import QtQuick
import QtTest
import Trit

// The design's rules, checked in both themes: every text colour is readable (WCAG's 4.5:1 for normal
// text) on every surface it is drawn on (white on the dark theme's light accent was 2.5:1), the type
// scale grows, "Reduce motion" stops every animation, and every icon the window names is bundled.
TestCase {
    name: "ChatTheme"

    ChatTheme { id: light; mode: "light" }
    ChatTheme { id: dark; mode: "dark" }

    function luminance(c) {
        function channel(v) { return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4) }
        return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)
    }
    function contrast(a, b) {
        const la = luminance(a), lb = luminance(b)
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
    }

    function test_textIsReadable_data() {
        return [{ tag: "light", theme: light }, { tag: "dark", theme: dark }]
    }
    function test_textIsReadable(data) {
        const t = data.theme
        const pairs = [["accentText", "accent"], ["error", "window"], ["error", "errorBackground"],
                       ["success", "successBackground"], ["success", "surface"],
                       ["warning", "window"], ["warning", "sidebar"], ["accent", "window"], ["accent", "surface"]]
        for (const fg of ["text", "mutedText"])
            for (const bg of ["window", "surface", "sidebar", "hover", "pressed", "selected", "userBubble",
                              "assistantBubble", "codeBackground"])
                pairs.push([fg, bg])
        for (const kind in t.codeColors)
            pairs.push(["codeColors." + kind, "codeBackground"])
        for (const p of pairs) {
            const fg = p[0].startsWith("codeColors.") ? Qt.color(t.codeColors[p[0].substring(11)]) : t[p[0]]
            const ratio = contrast(fg, t[p[1]])
            verify(ratio >= 4.5, p[0] + " on " + p[1] + ": " + ratio.toFixed(2) + ":1")
        }
    }

    function test_typeScaleGrows() {
        const t = light
        verify(t.fontCaption < t.fontSmall && t.fontSmall < t.fontBody && t.fontBody < t.fontSubtitle
               && t.fontSubtitle < t.fontTitle && t.fontTitle < t.fontHeadline)
        compare(t.fontBody, t.fontSize)
    }

    ChatTheme { id: calm; reduceMotion: true }
    function test_reduceMotionStopsAnimations() {
        verify(light.durationFast > 0 && light.durationNormal > 0)
        verify(light.durationNormal <= 250, "transitions stay short")
        compare(calm.durationFast, 0)
        compare(calm.durationNormal, 0)
    }

    // Every icon name used in qml/*.qml, loaded from the module's resources.
    Image { id: probe; sourceSize.width: 16; sourceSize.height: 16 }
    function test_iconsAreBundled_data() {
        return ["list-add", "document-open", "system-search", "edit-copy", "document-edit", "view-refresh",
                "go-previous", "go-next", "go-up", "media-playback-stop", "view-more", "view-pin",
                "user-trash", "window-close", "object-select", "folder-download", "emblem-system",
                "help-about", "drive-harddisk", "dialog-warning", "pan-down", "document-properties",
                "media-playback-pause", "media-playback-start", "folder"]
            .map(n => ({ tag: n, name: n }))
    }
    function test_iconsAreBundled(data) {
        probe.source = light.icon(data.name)
        tryCompare(probe, "status", Image.Ready)
        verify(probe.implicitWidth > 0)
    }
}
