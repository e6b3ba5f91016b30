#pragma once
// What the About dialog shows (qml/AboutDialog.qml): the version (from CMake's project(), the one place
// it lives), the Qt version, the engine's precision, the Vulkan devices the engine sees and the licence texts (Trit's,
// the model's, third-party notices), compiled into the binary so the dialog needs no installed files.
#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <functional>
#include <vector>

#include "trit/devices.h"

class QQmlEngine;

namespace trit::about {

class AboutInfo : public QObject {
  Q_OBJECT
  QML_NAMED_ELEMENT(AboutInfo)
  QML_UNCREATABLE("main() makes the one AboutInfo: App.about")
  Q_PROPERTY(QString version READ version CONSTANT)
  Q_PROPERTY(QString qtVersion READ qtVersion CONSTANT)
  Q_PROPERTY(QString precision READ precision CONSTANT)
  Q_PROPERTY(QStringList devices READ devices NOTIFY devicesChanged)
  Q_PROPERTY(QString deviceError READ deviceError NOTIFY devicesChanged)
  Q_PROPERTY(bool devicesQueried READ devicesQueried NOTIFY devicesChanged)
  Q_PROPERTY(QVariantList licenses READ licenses CONSTANT)

 public:
  using DeviceLister = std::function<std::vector<trit::DeviceInfo>()>;

  // `lister` enumerates the Vulkan devices (the engine's trit::list_vulkan_devices unless a test
  // hands in another); it is called only by refreshDevices(), so building this object costs nothing.
  explicit AboutInfo(QObject* parent = nullptr, DeviceLister lister = {});

  QString version() const;
  // "6.4.2" at run time, plus the build's version when they differ ("6.4.2 (built with 6.4.1)").
  QString qtVersion() const;
  // The activations' precision the engine runs the chat in ("fp32"): SessionOptions' default, which the
  // chat's engine worker uses.
  QString precision() const;
  // One multi-line description per device (the `trit-cli devices` text); empty when there is none.
  QStringList devices() const { return devices_; }
  // The engine's message when no device could be listed (no loader, no driver, no device), else "".
  QString deviceError() const { return deviceError_; }
  bool devicesQueried() const { return queried_; }
  // [{ "title": "...", "file": "trit.txt", "text": "..." }], Trit's own licence first.
  QVariantList licenses() const;

  // Asks the engine for the devices again (the dialog calls it when it opens).
  Q_INVOKABLE void refreshDevices();
  // Everything above as plain text, for the dialog's "Copy" button and bug reports.
  Q_INVOKABLE QString reportText() const;

 signals:
  void devicesChanged();

 private:
  DeviceLister lister_;
  QStringList devices_;
  QString deviceError_;
  bool queried_ = false;
};

// Makes one AboutInfo, owned by `engine`, and gives it to QML as App.about (app_services.h), which
// qml/AboutDialog.qml picks up by itself. main() calls it before loading Main.qml.
AboutInfo* exposeAboutInfo(QQmlEngine& engine);

}  // namespace trit::about
