//! The run engine the page drives: the core's sans-IO engine
//! ([`wildtool_core::runner::engine`]), with the run spec built from the setup form
//! through the core's one validating constructor.

pub use wildtool_core::runner::engine::{
    AgentKind, BackendSettings, Engine, Event, ProgressSnapshot, RequestId, RunEnd, RunSettings,
    RunSpec, RunStatus, SpecError, Transmit,
};
pub use wildtool_core::runner::http::{HttpReply, HttpResponse, NetworkFailure, NetworkKind};
use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::registry::{self, BuiltIn};

use crate::setup::SetupForm;

/// Why the setup form cannot make a run: a setting the core refused, or a field that is
/// not a number.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormError {
    /// The core's validation.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A field is not a number.
    #[error("{field} must be a number ({value:?} is not)")]
    NotANumber {
        /// The setting.
        field: &'static str,
        /// What was typed.
        value: String,
    },
    /// The provider is not known.
    #[error("unknown provider {0:?}")]
    Provider(String),
}

fn real(field: &'static str, value: &str) -> Result<f64, FormError> {
    value
        .trim()
        .parse::<f64>()
        .map_err(|_| FormError::NotANumber {
            field,
            value: value.to_owned(),
        })
}

fn whole(field: &'static str, value: &str) -> Result<u64, FormError> {
    let v = real(field, value)?;
    if v.fract() != 0.0 || v < 0.0 || !v.is_finite() {
        return Err(FormError::NotANumber {
            field,
            value: value.to_owned(),
        });
    }
    Ok(v as u64)
}

/// The run the setup form describes, on the dataset with fingerprint `dataset`; `model`
/// overrides the form's model name (resuming a stored run).
pub fn spec_from_form(
    form: &SetupForm,
    dataset: &str,
    model: Option<&str>,
) -> Result<RunSpec, FormError> {
    let backend = match registry::agent(&form.provider) {
        Some(a) => match a.kind {
            BuiltIn::Gold => BackendSettings::Agent(AgentKind::Gold),
            BuiltIn::Baseline => BackendSettings::Agent(AgentKind::Baseline),
            BuiltIn::Replay => {
                return Err(FormError::Provider(format!(
                    "{} (it needs a recorded result file; use `wildtool run --provider {}`)",
                    a.name, a.name
                )))
            }
        },
        None => BackendSettings::Http {
            provider: ProviderKind::from_name(&form.provider)
                .ok_or_else(|| FormError::Provider(form.provider.clone()))?,
            base_url: form.effective_base_url(),
            temperature: real("temperature", &form.temperature)?,
            browser: true,
        },
    };
    let model = match (model, &backend) {
        (Some(m), _) => m.to_owned(),
        // A built-in agent is named after itself: the model field is hidden for it, and
        // what it still holds from an endpoint set up before is not this run's model.
        (None, BackendSettings::Agent(_)) => form.provider.clone(),
        (None, _) => form.model.trim().to_owned(),
    };
    let mut s = RunSettings::new(model, dataset, backend);
    s.concurrency = whole("concurrency", &form.concurrency)?;
    s.timeout = real("timeout", &form.timeout)?;
    s.retries = whole("retries", &form.retries)?;
    s.backoff = real("backoff", &form.backoff)?;
    s.preflight = form.preflight;
    s.trials = whole("trials", &form.trials)?;
    s.stream = form.stream;
    Ok(RunSpec::new(s)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Field;

    #[test]
    fn the_form_is_validated_by_the_core() {
        let mut f = SetupForm::default();
        assert!(spec_from_form(&f, "fp", None).is_ok());
        f.set(Field::Provider, "openai").unwrap();
        f.set(Field::BaseUrl, "http://127.0.0.1:1/v1").unwrap();
        let e = spec_from_form(&f, "fp", None).unwrap_err().to_string();
        assert!(e.contains("model name is empty"), "{e}");
        f.set(Field::Model, "m").unwrap();
        assert!(spec_from_form(&f, "fp", None).is_ok());
        f.set(Field::Timeout, "inf").unwrap();
        let e = spec_from_form(&f, "fp", None).unwrap_err().to_string();
        assert!(e.contains("timeout"), "{e}");
        f.set(Field::Timeout, "600").unwrap();
        f.set(Field::BaseUrl, "ftp://x").unwrap();
        assert!(spec_from_form(&f, "fp", None)
            .unwrap_err()
            .to_string()
            .contains("base URL"));
        f.set(Field::BaseUrl, "http://127.0.0.1:1/v1").unwrap();
        f.set(Field::Concurrency, "0").unwrap();
        assert!(spec_from_form(&f, "fp", None)
            .unwrap_err()
            .to_string()
            .contains("concurrency"));
        f.set(Field::Concurrency, "4").unwrap();
        f.set(Field::Trials, "3").unwrap();
        assert_eq!(spec_from_form(&f, "fp", None).unwrap().trials(), 3);
        f.set(Field::Trials, "0").unwrap();
        assert!(spec_from_form(&f, "fp", None)
            .unwrap_err()
            .to_string()
            .contains("trials"));
    }
}
