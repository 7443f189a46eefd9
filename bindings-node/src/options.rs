//! The settings of `new Client(options)`, handed to the core's declaration as they are
//! (`monapi::settings`): each property is found by its JavaScript name, read by the setting's
//! kind (durations in milliseconds) and bounded by the core. The package's own options
//! (`token`, `onToken`, `logLevel`, `logger`) are taken apart by the TypeScript layer.

use monapi::settings::{self, Setting};
use monapi::{Language, Options, Value};
use napi::bindgen_prelude::{Object, Uint8Array, Unknown};
use napi::{JsValue, ValueType};

use crate::errors::{invalid_input, Result};

/// The core's options from the caller's settings object.
pub fn options(settings: &Object) -> Result<Options> {
    let mut options = Options {
        language: Some(Language::Node),
        ..Options::default()
    };
    for name in Object::keys(settings)? {
        let setting = settings::find(Language::Node, &name)?;
        let value = settings.get::<Unknown>(&name)?;
        let value = match value {
            Some(value) => value_of(setting, value)?,
            None => Value::Null,
        };
        options.set(Language::Node, &name, value)?;
    }
    Ok(options)
}

/// A JavaScript value as the core's [`Value`]; a type the setting never takes is refused with
/// the core's words (`Setting::expects`).
fn value_of(setting: &Setting, value: Unknown<'_>) -> Result<Value> {
    // SAFETY: each `cast` reads the type `get_type` (or `is_typedarray`) has just checked.
    let read = unsafe {
        match value.get_type()? {
            ValueType::Undefined | ValueType::Null => Some(Value::Null),
            ValueType::Boolean => Some(Value::Bool(value.cast::<bool>()?)),
            ValueType::Number => Some(Value::Number(value.cast::<f64>()?)),
            ValueType::String => Some(Value::Text(value.cast::<String>()?)),
            ValueType::Object if value.is_typedarray()? => value
                .cast::<Uint8Array>()
                .ok()
                .map(|bytes| Value::Bytes(bytes.to_vec())),
            ValueType::Object if !value.is_array()? => string_map(value.cast::<Object>()?)?,
            _ => None,
        }
    };
    match read {
        Some(value) if setting.takes(&value, Language::Node) => Ok(value),
        _ => Err(invalid_input(setting.node, &setting.expects(Language::Node))),
    }
}

/// A plain object of string values as names and values; `None` when a value is not a string.
fn string_map(object: Object) -> Result<Option<Value>> {
    let mut pairs = Vec::new();
    for name in Object::keys(&object)? {
        let value = object.get::<Unknown>(&name)?;
        // SAFETY: read as a string only once its type says it is one.
        match value {
            Some(value) if value.get_type()? == ValueType::String => {
                pairs.push((name, unsafe { value.cast::<String>()? }))
            }
            _ => return Ok(None),
        }
    }
    Ok(Some(Value::Map(pairs)))
}

/// The JavaScript names of the settings, in the core's order (for the suite's check that the
/// TypeScript `ClientOptions` declares each of them).
#[napi_derive::napi(catch_unwind)]
pub fn setting_names() -> Vec<String> {
    settings::SETTINGS
        .iter()
        .map(|setting| setting.name_in(Language::Node).to_string())
        .collect()
}
