//! Arguments of the Python API as Rust values: each type takes what Python callers pass
//! (`FromPyObject`) and hands it to the core's rules (`monapi::input`, `DateRange::parse`)
//! unchanged. A value of the wrong Python type is a `TypeError`; a value that breaks a rule is
//! the core's `ValidationError`.

use monapi::input::{self, Id};
use monapi::{DateRange, Monitor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyFloat, PyInt, PyMapping, PyString};

use crate::errors::to_pyerr;

/// The name of a Python value's type, for a `TypeError`.
fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// A number (`int` or `float`, not `bool`), as the core's rules take it.
#[derive(Clone, Copy, Debug)]
pub struct Number(pub f64);

impl<'a, 'py> FromPyObject<'a, 'py> for Number {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if !value.is_instance_of::<PyBool>() {
            if let Ok(float) = value.cast::<PyFloat>() {
                return Ok(Number(float.value()));
            }
            if value.is_instance_of::<PyInt>() {
                // Beyond i128 the bound is long passed: infinity says so.
                let whole = value.extract::<i128>().map_or(f64::INFINITY, |n| n as f64);
                let negative = value.lt(0i32).unwrap_or(false);
                return Ok(Number(if negative && whole.is_infinite() {
                    -whole
                } else {
                    whole
                }));
            }
        }
        Err(PyTypeError::new_err(format!(
            "expected an int or a float, not {}",
            type_name(&value)
        )))
    }
}

/// An id as Python callers pass it: an `int`, a whole `float`, or a string of digits (the
/// service's lists send ids as strings).
struct IdArg<'py>(Bound<'py, PyAny>);

impl IdArg<'_> {
    /// The core's view of the value; `None` for a type that is no id at all.
    fn with<T>(&self, f: impl FnOnce(Id<'_>) -> T) -> Option<T> {
        let value = &self.0;
        if value.is_instance_of::<PyBool>() {
            return None;
        }
        if value.is_instance_of::<PyInt>() {
            let n = value.extract::<i128>().unwrap_or(i128::MAX);
            return Some(f(Id::Int(n)));
        }
        if let Ok(float) = value.cast::<PyFloat>() {
            return Some(f(Id::Float(float.value())));
        }
        let text = value.cast::<PyString>().ok()?;
        // A string that is not UTF-8 (lone surrogates) is no id either: the core says so.
        let text = text.to_str().unwrap_or("\u{fffd}");
        Some(f(Id::Text(text)))
    }
}

/// `task_id`: a positive whole number, or a string of its digits.
pub struct TaskId(pub u64);

impl<'a, 'py> FromPyObject<'a, 'py> for TaskId {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = value.py();
        IdArg(value.to_owned())
            .with(input::task_id)
            .ok_or_else(|| PyTypeError::new_err("task_id must be an int or a string of digits"))?
            .map(TaskId)
            .map_err(|e| to_pyerr(py, e))
    }
}

/// `monitor` of a site report: `None` (every point), `0` (the average) or a point's id.
pub struct MonitorArg(pub Monitor);

impl<'a, 'py> FromPyObject<'a, 'py> for MonitorArg {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = value.py();
        if value.is_none() {
            return Ok(MonitorArg(Monitor::All));
        }
        IdArg(value.to_owned())
            .with(|id| input::monitor(Some(id)))
            .ok_or_else(|| PyTypeError::new_err("monitor must be None, an int or a string of digits"))?
            .map(MonitorArg)
            .map_err(|e| to_pyerr(py, e))
    }
}

/// `page`: a whole number from 1.
pub struct Page(pub u32);

impl<'a, 'py> FromPyObject<'a, 'py> for Page {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let Number(n) = value
            .extract()
            .map_err(|_| PyTypeError::new_err("page must be an int"))?;
        input::page(n).map(Page).map_err(|e| to_pyerr(value.py(), e))
    }
}

/// A day: a `datetime.date` (a `datetime` counts as its calendar date) or a `"YYYY-MM-DD"`
/// string, as that string (the core checks it).
pub struct Day(pub String);

static DATE_TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

impl<'a, 'py> FromPyObject<'a, 'py> for Day {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = value.py();
        if let Ok(text) = value.cast::<PyString>() {
            return Ok(Day(text.to_str()?.to_string()));
        }
        let date_type = DATE_TYPE.get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("datetime")?.getattr("date")?.unbind())
        })?;
        if value.is_instance(date_type.bind(py))? {
            let year: i32 = value.getattr("year")?.extract()?;
            let month: u32 = value.getattr("month")?.extract()?;
            let day: u32 = value.getattr("day")?.extract()?;
            return Ok(Day(format!("{year:04}-{month:02}-{day:02}")));
        }
        Err(PyTypeError::new_err(
            "dates must be a datetime.date or a 'YYYY-MM-DD' string",
        ))
    }
}

/// The period of a report from its two optional days (the core's rules).
pub fn date_range(py: Python<'_>, start: Option<Day>, end: Option<Day>) -> PyResult<DateRange> {
    let text = |day: &Option<Day>| day.as_ref().map(|d| d.0.clone());
    DateRange::parse(text(&start).as_deref(), text(&end).as_deref()).map_err(|e| to_pyerr(py, e))
}

/// Query parameters or form fields of `request()`: a mapping of names to `str`, `int` or
/// `float` values, sent as text.
#[derive(Default)]
pub struct Params(pub Vec<(String, String)>);

impl<'a, 'py> FromPyObject<'a, 'py> for Params {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if value.is_none() {
            return Ok(Params::default());
        }
        let mapping = value.cast::<PyMapping>().map_err(|_| {
            PyTypeError::new_err("params and form must be a dict of str to str, int or float")
        })?;
        let mut pairs = Vec::new();
        for item in mapping.items()?.iter() {
            let (key, item): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
            let key: String = key
                .extract()
                .map_err(|_| PyTypeError::new_err("params and form keys must be str"))?;
            let text = if item.is_instance_of::<PyBool>() {
                None
            } else if let Ok(text) = item.cast::<PyString>() {
                Some(text.to_str()?.to_string())
            } else if item.is_instance_of::<PyInt>() || item.is_instance_of::<PyFloat>() {
                Some(item.str()?.to_str()?.to_string())
            } else {
                None
            };
            let text = text.ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "the value of {key:?} must be a str, int or float, not {}",
                    type_name(&item)
                ))
            })?;
            pairs.push((key, text));
        }
        Ok(Params(pairs))
    }
}
