/// The emulator's stand-in for SelfDB's Deno service, which it does not run.
///
/// A real SelfDB whose functions service cannot be reached answers in the same shapes: a
/// deployment ends `failed` with the reason in `deployment_error`, a webhook delivery ends
/// `failed` with the reason in `error_message` (and its trigger answers 500), and everything
/// else — the functions' records, environment, webhooks, deliveries, the runtime's
/// execution-result callback with its runs and logs — behaves as on the real server. Only the
/// reason's words differ, so a test can tell the emulator's refusal from a network failure.
enum FunctionRuntime {
    /// Why a deployment or an invocation failed: always, with these words.
    static let unavailable = "the SelfDB emulator runs no Deno runtime: functions cannot be deployed or invoked here"
}
