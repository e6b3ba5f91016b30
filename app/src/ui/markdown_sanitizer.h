#pragma once
// Makes model-written Markdown safe to hand to Qt's Markdown renderer (Text.MarkdownText): no image
// and no raw HTML survives, so rendering a reply can never fetch a remote (or local) resource.
#include <QString>

namespace trit::ui {

// Outside code spans: "<" becomes "&lt;" (no HTML tag, hence no <img>, can reach the renderer) and
// "![" becomes "\![" (an image turns into an ordinary link that is only followed on a click).
// Text inside `code spans` is left byte for byte, since Markdown shows it literally anyway.
QString sanitizeMarkdown(const QString& markdown);

}  // namespace trit::ui
