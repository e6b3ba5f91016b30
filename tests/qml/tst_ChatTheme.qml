import QtQuick
import QtTest
import Trit

// Text on the accent colour (the selected conversation, highlighted controls) stays readable in both
// themes: WCAG's 4.5:1 contrast for normal text. White on the dark theme's light accent was 2.5:1.
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

    function test_accentTextIsReadable_data() {
        return [{ tag: "light", theme: light }, { tag: "dark", theme: dark }]
    }
    function test_accentTextIsReadable(data) {
        verify(contrast(data.theme.accentText, data.theme.accent) >= 4.5,
               "accentText on accent: " + contrast(data.theme.accentText, data.theme.accent).toFixed(2) + ":1")
        verify(contrast(data.theme.text, data.theme.window) >= 4.5)
        verify(contrast(data.theme.mutedText, data.theme.surface) >= 4.5)
    }
}
