// The About dialog's data (app/src/about): the version from project(VERSION), the compiled-in licence
// texts equal to resources/licenses/, the device list or the engine's error, and qml/AboutDialog.qml
// picking the object up and asking for the devices when it opens.
#include <QtQml/qqmlextensionplugin.h>
#include <QFile>
#include <QQmlApplicationEngine>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

#include "about/about_info.h"

Q_IMPORT_QML_PLUGIN(TritPlugin)

using trit::about::AboutInfo;

class TestAbout : public QObject {
  Q_OBJECT

 private slots:
  void versionIsTheProjectVersion() {
    AboutInfo about;
    QCOMPARE(about.version(), QStringLiteral(TRIT_APP_VERSION));
    QVERIFY2(QRegularExpression(QStringLiteral("^\\d+\\.\\d+\\.\\d+$")).match(about.version()).hasMatch(),
             qPrintable(about.version()));
    QVERIFY(about.qtVersion().startsWith(QString::fromLatin1(qVersion())));
  }

  // The chat runs fp32 activations on every device (double is a verification build only); the dialog
  // and the copied report say so.
  void showsThePrecisionTheChatRuns() {
    AboutInfo about;
    QCOMPARE(about.precision(), QStringLiteral("fp32"));
    QVERIFY(about.reportText().contains(QStringLiteral("Precision: fp32 activations")));
  }

  void licencesAreTheFilesOfResourcesLicenses() {
    const QString dir = qEnvironmentVariable("TRIT_SOURCE_DIR") + QStringLiteral("/resources/licenses/");
    AboutInfo about;
    const QVariantList list = about.licenses();
    QCOMPARE(list.size(), 4);
    QStringList titles;
    for (const QVariant& v : list) {
      const QVariantMap m = v.toMap();
      QFile f(dir + m.value(QStringLiteral("file")).toString());
      QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
      // A stale build would show an old text: the compiled copy must be the file, byte for byte.
      QCOMPARE(m.value(QStringLiteral("text")).toString(), QString::fromUtf8(f.readAll()));
      titles << m.value(QStringLiteral("title")).toString();
    }
    QVERIFY2(titles.first().startsWith(QStringLiteral("Trit")), qPrintable(titles.join(", ")));
    const QString trit = list[0].toMap().value(QStringLiteral("text")).toString();
    QVERIFY(trit.contains(QStringLiteral("MIT License")));
    const QString model = list[1].toMap().value(QStringLiteral("text")).toString();
    QVERIFY(model.contains(QStringLiteral("MIT License")));
    QVERIFY(model.contains(QStringLiteral("Microsoft Corporation")));
    const QString third = list[2].toMap().value(QStringLiteral("text")).toString();
    for (const char* name : {"Qt 6", "LGPLv3", "PCRE2", "nlohmann", "SQLite", "Vulkan loader", "Apache License"})
      QVERIFY2(third.contains(QLatin1String(name)), name);
    // The window's icons (qml/icons) are the GNOME Project's Adwaita icons, used under the LGPL 3.
    const QString icons = list[3].toMap().value(QStringLiteral("text")).toString();
    QVERIFY(icons.contains(QStringLiteral("Adwaita")));
    QVERIFY(icons.contains(QStringLiteral("GNU LESSER GENERAL PUBLIC LICENSE")));
  }

  void listsDevicesOnRequestOnly() {
    int calls = 0;
    AboutInfo about(nullptr, [&calls] {
      ++calls;
      trit::DeviceInfo d;
      d.name = "Test GPU 9000";
      d.type = "discrete";
      return std::vector<trit::DeviceInfo>{d};
    });
    QCOMPARE(calls, 0);
    QVERIFY(!about.devicesQueried());
    QVERIFY(about.reportText().contains(QStringLiteral("not queried")));
    QSignalSpy changed(&about, &AboutInfo::devicesChanged);
    about.refreshDevices();
    QCOMPARE(calls, 1);
    QCOMPARE(changed.count(), 1);
    QVERIFY(about.devicesQueried());
    QCOMPARE(about.devices().size(), 1);
    QVERIFY2(about.devices().first().contains(QStringLiteral("Test GPU 9000")), qPrintable(about.devices().first()));
    QVERIFY(about.deviceError().isEmpty());
    QVERIFY(about.reportText().contains(QStringLiteral("Test GPU 9000")));
  }

  void showsTheEnginesErrorWhenThereIsNoDevice() {
    AboutInfo about(nullptr, []() -> std::vector<trit::DeviceInfo> {
      throw trit::VulkanError("No Vulkan driver found: install mesa-vulkan-drivers.");
    });
    about.refreshDevices();
    QVERIFY(about.devicesQueried());
    QVERIFY(about.devices().isEmpty());
    QCOMPARE(about.deviceError(), QStringLiteral("No Vulkan driver found: install mesa-vulkan-drivers."));
    QVERIFY(about.reportText().contains(QStringLiteral("install mesa-vulkan-drivers")));

    AboutInfo none(nullptr, [] { return std::vector<trit::DeviceInfo>{}; });
    none.refreshDevices();
    QVERIFY(!none.deviceError().isEmpty());
  }

  void listsTheRealDevices() {
    // The suite runs on lavapipe (VK_DRIVER_FILES in TRIT_TEST_ENV), so there is one CPU device.
    AboutInfo about;
    about.refreshDevices();
    QVERIFY2(about.deviceError().isEmpty(), qPrintable(about.deviceError()));
    QVERIFY(!about.devices().isEmpty());
  }

  void dialogFindsTheObjectAndQueriesOnOpen() {
    QQmlApplicationEngine engine;
    AboutInfo* about = trit::about::exposeAboutInfo(engine);
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    engine.loadData(R"(
      import QtQuick
      import QtQuick.Controls
      import Trit
      ApplicationWindow {
        width: 800; height: 600; visible: true
        property alias dialog: about
        AboutDialog { id: about }
      })");
    QCOMPARE(engine.rootObjects().size(), 1);
    QObject* window = engine.rootObjects().first();
    auto* dialog = window->property("dialog").value<QObject*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->property("about").value<QObject*>(), about);
    QVERIFY(!about->devicesQueried());
    QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
    QTRY_VERIFY(dialog->property("opened").toBool());
    QVERIFY(about->devicesQueried());
    auto* precision = dialog->findChild<QObject*>(QStringLiteral("aboutPrecision"));
    QVERIFY(precision);
    QCOMPARE(precision->property("text").toString(), QStringLiteral("Precision: fp32 activations"));
  }
};

QTEST_MAIN(TestAbout)
#include "tst_about.moc"
