//! How a skeleton applies its protocol's sequence checker: enforce, warn or off.

use agentwire_runtime::machine::Violation;

/// What a skeleton does with a message its sequence checker objects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckMode {
    /// Refuse the message: an inbound one gets the protocol's own error answer, an outbound
    /// one is not sent and the caller gets the violation back.
    #[default]
    Enforce,
    /// Log the violation with `tracing` and let the message through.
    Warn,
    /// Do not run the checker at all.
    Off,
}

/// A checker together with the mode it runs in. `C` is a generated `machine::Checker`.
#[derive(Debug)]
pub struct Gate<C> {
    mode: CheckMode,
    checker: C,
}

impl<C> Gate<C> {
    pub fn new(mode: CheckMode, checker: C) -> Self {
        Self { mode, checker }
    }

    pub fn mode(&self) -> CheckMode {
        self.mode
    }

    /// Runs `observe` on the checker unless the mode is `Off`. Only `Enforce` turns a
    /// violation into an error; `Warn` logs it. A violation leaves the checker's state as it
    /// was, so a refused message does not poison the rest of the stream.
    pub fn admit(
        &mut self,
        observe: impl FnOnce(&mut C) -> Result<(), Violation>,
    ) -> Result<(), Violation> {
        match self.mode {
            CheckMode::Off => Ok(()),
            CheckMode::Warn => {
                if let Err(v) = observe(&mut self.checker) {
                    crate::warn_throttled!(violation = %v, "sequence violation (warn mode)");
                }
                Ok(())
            }
            CheckMode::Enforce => observe(&mut self.checker),
        }
    }

    /// The checker itself, e.g. to call `finish` at a clean end of stream.
    pub fn into_checker(self) -> C {
        self.checker
    }
}
