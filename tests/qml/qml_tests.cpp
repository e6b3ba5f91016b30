// Runs the Qt Quick Test files in tests/qml against the static QML modules "Trit" and "Trit.Native".
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest/quicktest.h>
#include <QQmlEngine>

#include "app_services.h"

Q_IMPORT_QML_PLUGIN(TritPlugin)
Q_IMPORT_QML_PLUGIN(Trit_NativePlugin)

class Setup : public QObject {
  Q_OBJECT
 public slots:
  void qmlEngineAvailable(QQmlEngine* engine) {
    engine->addImportPath(QStringLiteral("qrc:/qt/qml"));
    // The singleton App with no services, as in a bare load: components get stand-ins from the tests.
    trit::app::AppServices::of(*engine);
  }
};

QUICK_TEST_MAIN_WITH_SETUP(trit_qml, Setup)

#include "qml_tests.moc"
