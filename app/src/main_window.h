#pragma once
// Loading the QML user interface, shared by main() and the tests.
#include <QString>

class QQmlApplicationEngine;
class QQuickWindow;

namespace trit::app {

// Loads qml/Main.qml into `engine`. Returns the main window, or nullptr with `error` set.
QQuickWindow* loadMainWindow(QQmlApplicationEngine& engine, QString* error);

}  // namespace trit::app
