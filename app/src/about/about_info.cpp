#include "about/about_info.h"

#include <QQmlEngine>
#include <QVariantMap>
#include <QtGlobal>
#include <exception>

#include "about/license_texts.h"
#include "app_services.h"
#include "trit/session.h"

#ifndef TRIT_APP_VERSION
#error "TRIT_APP_VERSION comes from project(VERSION) in the top-level CMakeLists.txt"
#endif

namespace trit::about {

AboutInfo::AboutInfo(QObject* parent, DeviceLister lister)
    : QObject(parent), lister_(lister ? std::move(lister) : DeviceLister(&trit::list_vulkan_devices)) {}

QString AboutInfo::version() const {
  return QStringLiteral(TRIT_APP_VERSION);
}

QString AboutInfo::qtVersion() const {
  const QString runtime = QString::fromLatin1(qVersion());
  const QString built = QStringLiteral(QT_VERSION_STR);
  return runtime == built ? runtime : QStringLiteral("%1 (built with %2)").arg(runtime, built);
}

QString AboutInfo::precision() const {
  return QString::fromLatin1(trit::to_string(trit::SessionOptions{}.precision));
}

QVariantList AboutInfo::licenses() const {
  QVariantList list;
  for (const LicenseText& l : licenseTexts()) {
    list.append(QVariantMap{{QStringLiteral("title"), QString::fromUtf8(l.title)},
                            {QStringLiteral("file"), QString::fromUtf8(l.file)},
                            {QStringLiteral("text"), QString::fromUtf8(l.text)}});
  }
  return list;
}

void AboutInfo::refreshDevices() {
  QStringList found;
  QString error;
  try {
    for (const trit::DeviceInfo& d : lister_()) found << QString::fromStdString(trit::describe_device(d)).trimmed();
    if (found.isEmpty()) error = tr("The Vulkan loader reported no device.");
  } catch (const trit::VulkanError& e) {
    // The engine's messages are complete sentences saying what to install or check.
    error = QString::fromStdString(e.what());
  } catch (const std::exception& e) {
    error = tr("Listing the Vulkan devices failed: %1").arg(QString::fromStdString(e.what()));
  }
  devices_ = found;
  deviceError_ = error;
  queried_ = true;
  emit devicesChanged();
}

QString AboutInfo::reportText() const {
  QString text = QStringLiteral("Trit %1\nQt %2\nPrecision: %3 activations\n").arg(version(), qtVersion(), precision());
  if (!queried_)
    text += QStringLiteral("Vulkan devices: not queried\n");
  else if (!deviceError_.isEmpty())
    text += QStringLiteral("Vulkan devices: none (%1)\n").arg(deviceError_);
  else
    text += QStringLiteral("Vulkan devices:\n") + devices_.join(QLatin1Char('\n')) + QLatin1Char('\n');
  return text;
}

AboutInfo* exposeAboutInfo(QQmlEngine& engine) {
  auto* info = new AboutInfo(&engine);
  app::AppServices::of(engine)->setAbout(info);
  return info;
}

}  // namespace trit::about
