import QtQuick

// A prose block of a reply, rendered as Markdown. The text has been sanitised in C++ (no images, no
// HTML), and the QML engine refuses remote requests, so rendering never fetches anything. Links open
// only when clicked, and only web and mail links.
TextEdit {
    id: prose
    property ChatTheme theme: ChatTheme {}
    textFormat: TextEdit.MarkdownText
    readOnly: true
    selectByMouse: true
    wrapMode: TextEdit.Wrap
    color: theme.text
    selectionColor: theme.accent
    selectedTextColor: theme.accentText
    font.pointSize: theme.fontBody
    Accessible.role: Accessible.StaticText
    Accessible.name: getText(0, length)
    onLinkActivated: (link) => {
        if (/^(https?|mailto):/i.test(link))
            Qt.openUrlExternally(link)
    }
    HoverHandler {
        cursorShape: prose.hoveredLink.length > 0 ? Qt.PointingHandCursor : Qt.IBeamCursor
    }
}
