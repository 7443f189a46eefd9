//! `monapi.Table`: a table the core built (`monapi::table`), handed to Python as it is.
//!
//! The table owns the core's Arrow record batches and shares them through the Arrow PyCapsule
//! interface (`__arrow_c_stream__`), so pyarrow, polars and DuckDB read the very buffers the
//! core filled; nothing here builds, parses or converts a value.

use std::sync::Arc;

use monapi::table::arrow_array::{ArrayRef, RecordBatch, StructArray};
use monapi::table::arrow_schema::{ArrowError, Field, SchemaRef};
use pyo3::exceptions::{PyImportError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyList, PyTuple};
use pyo3_arrow::ffi::{to_schema_pycapsule, to_stream_pycapsule, ArrayIterator};

/// The tasks of a bulk call that failed: `(task_id, MonapiError)`.
pub type Failures = Vec<(u64, Py<PyAny>)>;

/// Rows `repr()` shows.
const REPR_ROWS: usize = 5;

/// A table of the service's data, ready for analysis, built once by monapi's core.
///
/// Its columns have fixed Arrow types: times are tz-aware timestamps (seconds, in the
/// client's ``timezone``), numbers ``float64`` (null where the service sent nothing
/// readable), ids and counts ``int64``, names and categories dictionary-encoded strings.
///
/// A ``Table`` implements the Arrow PyCapsule stream interface (``__arrow_c_stream__``), so
/// ``pyarrow.table(t)``, ``polars.DataFrame(t)`` and DuckDB (``duckdb.sql("select * from
/// t")``) read it without a copy of its columns. ``to_pandas()``, ``to_polars()`` and
/// ``to_arrow()`` do the usual conversions; each needs its library, installed with an extra
/// (``pip install 'monapi[pandas]'``, ``'monapi[polars]'``, ``'monapi[arrow]'``).
///
/// Tables pickle (as Arrow IPC bytes).
///
/// Examples
/// --------
/// >>> table = client.tables.service_report(10001, start_date="2026-11-01")
/// >>> table.column_names
/// ['task_id', 'series', 'time', 'metric', 'value']
/// >>> df = table.to_pandas()
/// >>> df.groupby("metric")["value"].mean()
#[pyclass(module = "monapi", frozen)]
pub struct Table {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    failures: Failures,
}

impl Table {
    /// A table of one batch.
    pub fn new(batch: RecordBatch) -> Table {
        Table {
            schema: batch.schema(),
            batches: vec![batch],
            failures: Vec::new(),
        }
    }

    /// A table of `batches` (each of `schema`; none for an empty table) with the tasks that
    /// failed.
    pub fn chunked(schema: SchemaRef, batches: Vec<RecordBatch>, failures: Failures) -> Table {
        Table {
            schema,
            batches,
            failures,
        }
    }

    fn rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The first `n` rows as text, in a grid.
    fn head(&self, n: usize) -> Result<String, ArrowError> {
        let mut head = Vec::new();
        let mut left = n;
        for batch in &self.batches {
            if left == 0 {
                break;
            }
            let take = left.min(batch.num_rows());
            head.push(batch.slice(0, take));
            left -= take;
        }
        if head.is_empty() {
            head.push(RecordBatch::new_empty(self.schema.clone()));
        }
        Ok(arrow_cast::pretty::pretty_format_batches(&head)?.to_string())
    }

    fn ipc(&self) -> Result<Vec<u8>, ArrowError> {
        let mut bytes = Vec::new();
        let mut writer = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &self.schema)?;
        for batch in &self.batches {
            writer.write(batch)?;
        }
        writer.finish()?;
        drop(writer);
        Ok(bytes)
    }
}

fn arrow_error(error: ArrowError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// Imports `module`, or raises an `ImportError` that names the extra to install.
fn import_extra<'py>(
    py: Python<'py>,
    module: &str,
    method: &str,
    extra: &str,
) -> PyResult<Bound<'py, PyModule>> {
    py.import(module).map_err(|error| {
        if error.is_instance_of::<PyImportError>(py) {
            let text = format!(
                "Table.{method}() needs the optional package {module}: pip install 'monapi[{extra}]'"
            );
            let new = PyImportError::new_err(text);
            new.set_cause(py, Some(error));
            new
        } else {
            error
        }
    })
}

#[pymethods]
impl Table {
    /// The number of rows.
    ///
    /// Examples
    /// --------
    /// >>> table.num_rows == len(table)
    /// True
    #[getter]
    fn num_rows(&self) -> usize {
        self.rows()
    }

    /// The names of the columns, in order.
    ///
    /// Examples
    /// --------
    /// >>> client.tables.response_time_distribution(20001).column_names
    /// ['task_id', 'start_ms', 'end_ms', 'count', 'percent']
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    /// The columns and their Arrow types, as text (``{"time": "Timestamp(s, \"+08:00\")",
    /// ...}``). ``pyarrow.schema(table)`` gives a ``pyarrow.Schema``.
    ///
    /// Examples
    /// --------
    /// >>> table.schema["value"]
    /// 'Float64'
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let schema = PyDict::new(py);
        for field in self.schema.fields() {
            schema.set_item(field.name(), field.data_type().to_string())?;
        }
        Ok(schema)
    }

    /// For a bulk call with ``errors="collect"`` (or the table of a
    /// :class:`PartialResultError`): each task that failed, with its error; empty otherwise.
    ///
    /// Examples
    /// --------
    /// >>> table = client.tables.service_reports([10001, 999], errors="collect")
    /// >>> [task_id for task_id, error in table.failures]
    /// [999]
    #[getter]
    fn failures<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self
            .failures
            .iter()
            .map(|(task_id, error)| (*task_id, error.clone_ref(py)));
        PyList::new(py, items)
    }

    fn __len__(&self) -> usize {
        self.rows()
    }

    fn __repr__(&self) -> PyResult<String> {
        let columns = self
            .schema
            .fields()
            .iter()
            .map(|f| format!("  {}: {}", f.name(), f.data_type()))
            .collect::<Vec<_>>()
            .join("\n");
        let rows = self.rows();
        let shown = if rows > REPR_ROWS {
            format!("first {REPR_ROWS} rows:\n")
        } else {
            String::new()
        };
        let mut text = format!(
            "<monapi.Table: {rows} rows, {} columns>\n{columns}\n{shown}{}",
            self.schema.fields().len(),
            self.head(REPR_ROWS).map_err(arrow_error)?
        );
        if !self.failures.is_empty() {
            text.push_str(&format!("\n{} tasks failed (see .failures)", self.failures.len()));
        }
        Ok(text)
    }

    /// The Arrow PyCapsule stream interface: the table's record batches, shared without a
    /// copy. Arrow readers (pyarrow, polars, DuckDB) call it; code rarely needs to.
    ///
    /// Parameters
    /// ----------
    /// requested_schema : PyCapsule, optional
    ///     An ``arrow_schema`` capsule of the types the reader wants: the columns are cast
    ///     to them.
    ///
    /// Returns
    /// -------
    /// PyCapsule
    ///     An ``arrow_array_stream`` capsule of the table's record batches.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     A column cannot be cast to the type ``requested_schema`` asks for.
    ///
    /// Examples
    /// --------
    /// >>> import pyarrow as pa
    /// >>> pa.table(table).num_rows == table.num_rows
    /// True
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let batches = self.batches.clone().into_iter().map(|batch| {
            let array: ArrayRef = Arc::new(StructArray::from(batch));
            Ok(array)
        });
        let field = Field::new_struct("", self.schema.fields().clone(), false)
            .with_metadata(self.schema.metadata().clone());
        let reader = Box::new(ArrayIterator::new(batches, Arc::new(field)));
        Ok(to_stream_pycapsule(py, reader, requested_schema)?)
    }

    /// The Arrow PyCapsule schema interface: the table's columns and their types.
    ///
    /// Returns
    /// -------
    /// PyCapsule
    ///     An ``arrow_schema`` capsule.
    ///
    /// Examples
    /// --------
    /// >>> import pyarrow as pa
    /// >>> pa.schema(table).names == table.column_names
    /// True
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        Ok(to_schema_pycapsule(py, self.schema.as_ref())?)
    }

    /// The table as a ``pyarrow.Table`` (no copy of the columns).
    ///
    /// Raises
    /// ------
    /// ImportError
    ///     pyarrow is not installed (``pip install 'monapi[arrow]'``).
    ///
    /// Examples
    /// --------
    /// >>> table.to_arrow().schema.field("time").type
    /// TimestampType(timestamp[s, tz=+08:00])
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let pyarrow = import_extra(slf.py(), "pyarrow", "to_arrow", "arrow")?;
        pyarrow.call_method1("table", (slf,))
    }

    /// The table as a ``pandas.DataFrame``: tz-aware ``datetime64`` times, ``float64``
    /// numbers, integer ids, ``category`` names.
    ///
    /// Raises
    /// ------
    /// ImportError
    ///     pandas or pyarrow is not installed (``pip install 'monapi[pandas]'``).
    ///
    /// Examples
    /// --------
    /// >>> df = table.to_pandas()
    /// >>> df.dtypes["time"]
    /// datetime64[s, UTC+08:00]
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        import_extra(py, "pandas", "to_pandas", "pandas")?;
        let pyarrow = import_extra(py, "pyarrow", "to_pandas", "pandas")?;
        pyarrow.call_method1("table", (slf,))?.call_method0("to_pandas")
    }

    /// The table as a ``polars.DataFrame`` (read through the Arrow stream interface).
    ///
    /// Raises
    /// ------
    /// ImportError
    ///     polars is not installed (``pip install 'monapi[polars]'``).
    ///
    /// Examples
    /// --------
    /// >>> df = table.to_polars()
    /// >>> df.schema["value"]
    /// Float64
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let polars = import_extra(slf.py(), "polars", "to_polars", "polars")?;
        polars.call_method1("DataFrame", (slf,))
    }

    /// Pickle support: the table as Arrow IPC bytes, with its ``failures``.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let restore = py.import("monapi._native")?.getattr("_table_from_ipc")?;
        let bytes = PyBytes::new(py, &self.ipc().map_err(arrow_error)?);
        let failures = self.failures(py)?;
        (restore, (bytes, failures)).into_pyobject(py)
    }
}

/// Rebuilds a pickled ``Table`` from its Arrow IPC stream ``data`` and its ``failures``
/// (what ``Table.__reduce__`` gives pickle). Not public API.
#[pyfunction]
pub fn _table_from_ipc(data: &[u8], failures: Failures) -> PyResult<Table> {
    let reader = arrow_ipc::reader::StreamReader::try_new(data, None).map_err(arrow_error)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>().map_err(arrow_error)?;
    Ok(Table::chunked(schema, batches, failures))
}
