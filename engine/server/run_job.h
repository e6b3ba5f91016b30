#pragma once
// Runs one job on a session, on the thread that owns the session: the text goes to the job as it is
// decoded, a cancelled job stops within one token (or one prefill block), and the result says how it
// ended. Shared by the CLI's SerialScheduler and the app's scheduler (app/src/server), which runs API
// jobs on the chat window's own engine thread and session.
#include "job.h"
#include "trit/session.h"

namespace trit::server {

// Does not call job.finish(): the caller does, once, after its own bookkeeping.
JobResult run_job(Session& session, Job& job);

}  // namespace trit::server
