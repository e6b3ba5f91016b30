#include "main_window.h"

#include <QtQml/qqmlextensionplugin.h>
#include <QQmlApplicationEngine>
#include <QQuickWindow>

#include "app_services.h"

// The QML modules "Trit" (qml/CMakeLists.txt) and "Trit.Native" (its C++ types, app/CMakeLists.txt)
// are static plugins; this pulls them into the binary.
Q_IMPORT_QML_PLUGIN(TritPlugin)
Q_IMPORT_QML_PLUGIN(Trit_NativePlugin)

namespace trit::app {

QQuickWindow* loadMainWindow(QQmlApplicationEngine& engine, QString* error) {
  QStringList warnings;
  QObject::connect(&engine, &QQmlApplicationEngine::warnings, &engine, [&warnings](const QList<QQmlError>& list) {
    for (const auto& w : list) warnings << w.toString();
  });
  engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
  AppServices::of(engine);  // App (Trit.App), empty unless main() or a test filled it
  engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Trit/Main.qml")));
  const auto roots = engine.rootObjects();
  auto* window = roots.isEmpty() ? nullptr : qobject_cast<QQuickWindow*>(roots.first());
  if (!window && error)
    *error = warnings.isEmpty() ? QStringLiteral("Main.qml produced no window") : warnings.join('\n');
  return window;
}

}  // namespace trit::app
