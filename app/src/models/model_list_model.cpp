#include "model_list_model.h"

namespace trit::models {

QString displayName(const ModelRow& r) {
  if (r.inCatalog) return r.entry.name;
  return r.info.name.isEmpty() ? r.id : r.info.name;
}

int ModelListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

QHash<int, QByteArray> ModelListModel::roleNames() const {
  return {{IdRole, "id"},
          {NameRole, "name"},
          {DescriptionRole, "description"},
          {SizeRole, "size"},
          {LicenseRole, "license"},
          {InstalledRole, "installed"},
          {PathRole, "path"},
          {DownloadingRole, "downloading"},
          {PausedRole, "paused"},
          {BytesReceivedRole, "bytesReceived"},
          {BytesTotalRole, "bytesTotal"},
          {PercentRole, "percent"},
          {SpeedRole, "speedBytesPerSec"},
          {SecondsLeftRole, "secondsLeft"},
          {ErrorRole, "error"},
          {MemoryNeededRole, "memoryNeeded"},
          {FitsGpuRole, "fitsGpu"},
          {StateRole, "state"},
          {QuantizationRole, "quantization"},
          {ContextLengthRole, "contextLength"},
          {InCatalogRole, "inCatalog"},
          {ArchitectureRole, "architecture"},
          {ParametersRole, "parameters"},
          {LicenseUrlRole, "licenseUrl"},
          {ModelDataRole, "modelData"}};
}

namespace {

QString stateName(const ModelRow& r) {
  if (r.installed) return QStringLiteral("installed");
  if (r.downloading) return QStringLiteral("downloading");
  if (r.paused) return QStringLiteral("paused");
  if (!r.error.isEmpty()) return QStringLiteral("failed");
  return QStringLiteral("available");
}

// The installed file's own count when it could be read, else the catalogue's (0: unknown).
qint64 parametersOf(const ModelRow& r) {
  return r.installed && r.info.parameters > 0 ? r.info.parameters : r.entry.parameters;
}

qint64 sizeOf(const ModelRow& r) {
  if (r.installed) return r.info.fileSize;
  return r.inCatalog ? r.entry.size : r.info.fileSize;
}

// The parts of a download's progress, each "" while unknown: "4.20 MiB of 10.0 MiB", "1.00 MiB/s",
// "6 s left". The model manager's cards show them side by side.
QString receivedText(const DownloadProgress& p) {
  return p.total > 0 ? ModelListModel::tr("%1 of %2").arg(formatBytes(p.received), formatBytes(p.total))
                     : formatBytes(p.received);
}
QString speedText(const DownloadProgress& p) {
  return p.bytesPerSecond > 0 ? ModelListModel::tr("%1/s").arg(formatBytes(qint64(p.bytesPerSecond))) : QString();
}
QString timeLeftText(const DownloadProgress& p) {
  return p.secondsLeft >= 0 ? ModelListModel::tr("%1 left").arg(formatDuration(p.secondsLeft)) : QString();
}

// "42.0% · 4.20 MiB of 10.0 MiB · 1.00 MiB/s · 6 s left": the same parts in one line (the first run).
QString progressText(const DownloadProgress& p) {
  QStringList parts;
  if (p.percent >= 0) parts << QStringLiteral("%1%").arg(p.percent, 0, 'f', 1);
  parts << receivedText(p) << speedText(p) << timeLeftText(p);
  parts.removeAll(QString());
  return parts.join(QStringLiteral(" · "));
}

}  // namespace

qint64 ModelListModel::memoryNeeded(const ModelRow& r) const {
  // An installed file is judged by its own header at the configured context; a catalogue entry not yet
  // downloaded by the catalogue's "memory" figure.
  if (r.installed && r.info.weightBytes > 0) return memoryNeededAt(r.info, context_);
  return r.inCatalog ? r.entry.memory : memoryNeededAt(r.info, context_);
}

QVariant ModelListModel::fits(const ModelRow& r) const {
  const qint64 need = memoryNeeded(r);
  if (gpuFreeBytes_ < 0 || need <= 0) return {};
  return fitsGpu(need, gpuFreeBytes_);
}

QString ModelListModel::fitText(const ModelRow& r) const {
  const QVariant f = fits(r);
  if (!f.isValid()) return {};
  const QString need = formatBytes(memoryNeeded(r)), have = formatBytes(gpuFreeBytes_);
  if (f.toBool())
    return gpuBudget_ ? tr("fits (needs %1 of %2 free)").arg(need, have)
                      : tr("fits (needs %1 of %2 on the GPU)").arg(need, have);
  return gpuBudget_ ? tr("does not fit (needs %1, only %2 free)").arg(need, have)
                    : tr("does not fit (needs %1, the GPU has %2)").arg(need, have);
}

QVariant ModelListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ModelRow& r = rows_[index.row()];
  switch (role) {
    case Qt::DisplayRole:
    case NameRole:
      return displayName(r);
    case IdRole:
      return r.id;
    case DescriptionRole:
      return r.inCatalog ? r.entry.description : QString();
    case SizeRole:
      return sizeOf(r);
    case LicenseRole:
      return r.inCatalog ? r.entry.license : QString();
    case InstalledRole:
      return r.installed;
    case PathRole:
      return r.installed ? r.info.path : QString();
    case DownloadingRole:
      return r.downloading;
    case PausedRole:
      return r.paused;
    case BytesReceivedRole:
      return r.progress.received;
    case BytesTotalRole:
      return r.progress.total;
    case PercentRole:
      return r.progress.percent;
    case SpeedRole:
      return r.progress.bytesPerSecond;
    case SecondsLeftRole:
      return r.progress.secondsLeft;
    case ErrorRole:
      return r.error;
    case MemoryNeededRole:
      return memoryNeeded(r);
    case FitsGpuRole:
      return fits(r);
    case StateRole:
      return stateName(r);
    case QuantizationRole:
      return r.installed && !r.info.quantization.isEmpty() ? r.info.quantization : r.entry.quantization;
    case ArchitectureRole:
      return r.installed && !r.info.architecture.isEmpty() ? r.info.architecture : r.entry.architecture;
    case ParametersRole:
      return parametersOf(r);
    case LicenseUrlRole:
      return r.inCatalog ? r.entry.licenseUrl : QString();
    case ContextLengthRole:
      return r.installed && r.info.contextLength > 0 ? r.info.contextLength : r.entry.contextLength;
    case InCatalogRole:
      return r.inCatalog;
    case ModelDataRole:
      return toMap(index.row());
    default:
      return {};
  }
}

QVariantMap ModelListModel::toMap(int row) const {
  QVariantMap m;
  const QModelIndex i = index(row);
  const auto roles = roleNames();
  for (auto it = roles.begin(); it != roles.end(); ++it)
    if (it.key() != ModelDataRole) m.insert(QString::fromLatin1(it.value()), data(i, it.key()));
  const ModelRow& r = rows_[row];
  const qint64 size = sizeOf(r);
  m.insert(QStringLiteral("sizeText"), size > 0 ? formatBytes(size) : QString());
  m.insert(QStringLiteral("parametersText"), formatParameters(parametersOf(r)));
  const bool transferring = r.downloading || r.paused;
  m.insert(QStringLiteral("progressText"), transferring ? progressText(r.progress) : QString());
  m.insert(QStringLiteral("receivedText"), transferring ? receivedText(r.progress) : QString());
  m.insert(QStringLiteral("speedText"), r.downloading ? speedText(r.progress) : QString());
  m.insert(QStringLiteral("timeLeftText"), r.downloading ? timeLeftText(r.progress) : QString());
  m.insert(QStringLiteral("message"), !r.error.isEmpty() ? r.error : r.message);
  m.insert(QStringLiteral("fits"), fits(r));
  m.insert(QStringLiteral("fitText"), fitText(r));
  return m;
}

void ModelListModel::setRows(QList<ModelRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

void ModelListModel::updateRow(int row, const ModelRow& r) {
  if (row < 0 || row >= rows_.size()) return;
  rows_[row] = r;
  emit dataChanged(index(row), index(row));
}

int ModelListModel::indexOf(const QString& id) const {
  for (int i = 0; i < rows_.size(); ++i)
    if (rows_[i].id == id) return i;
  return -1;
}

void ModelListModel::allChanged(const QList<int>& roles) {
  if (!rows_.isEmpty()) emit dataChanged(index(0), index(int(rows_.size()) - 1), roles);
}

void ModelListModel::setGpu(qint64 freeBytes, bool budget) {
  if (freeBytes == gpuFreeBytes_ && budget == gpuBudget_) return;
  gpuFreeBytes_ = freeBytes;
  gpuBudget_ = budget;
  allChanged({FitsGpuRole, ModelDataRole});
}

void ModelListModel::setContextLength(int context) {
  if (context == context_) return;
  context_ = context;
  allChanged({MemoryNeededRole, FitsGpuRole, ModelDataRole});
}

InstalledModelsModel::InstalledModelsModel(ModelListModel* source, QObject* parent) : QSortFilterProxyModel(parent) {
  setSourceModel(source);
  setDynamicSortFilter(true);
}

bool InstalledModelsModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  return sourceModel()->index(sourceRow, 0, sourceParent).data(ModelListModel::InstalledRole).toBool();
}

}  // namespace trit::models
