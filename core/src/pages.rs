//! The service task list, page by page: where it ends is decided here, once, for the typed
//! stream, the Python and Node iterators and the command line.

use futures::{Stream, TryStreamExt};

use crate::model::ServiceTask;
use crate::shape::count_items;
use crate::transport::RawResponse;
use crate::{Client, Request, Result};

/// Records per page of the service task list.
pub const PAGE_SIZE: usize = 50;

/// One page of the service task list, as the service sent it: a JSON list of tasks (an empty
/// page, which the service may write `[]`, `{}` or `null`, is `[]`; any other answer that is
/// not a list is an [`Error::Decode`](crate::Error::Decode)).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), monapi::Error> {
/// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
/// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
/// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
/// let page = client.service_task_page(1).await?;
/// assert_eq!((page.len(), page.next()), (50, Some(2)));
/// let tasks: serde_json::Value = page.response().json()?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct TaskPage {
    number: u32,
    response: RawResponse,
    len: usize,
}

impl TaskPage {
    pub(crate) fn new(number: u32, response: RawResponse) -> TaskPage {
        let len = count_items(response.body());
        TaskPage {
            number,
            response,
            len,
        }
    }

    /// Which page this is (from 1).
    pub fn number(&self) -> u32 {
        self.number
    }

    /// How many tasks it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The page after this one, unless this one ends the list: a page with fewer than
    /// [`PAGE_SIZE`] tasks (an empty page too) is the last.
    pub fn next(&self) -> Option<u32> {
        if self.len >= PAGE_SIZE {
            self.number.checked_add(1)
        } else {
            None
        }
    }

    /// The answer: its body is the page's JSON list, as sent.
    pub fn response(&self) -> &RawResponse {
        &self.response
    }

    /// The answer, for a parser of the caller's choice.
    pub fn into_response(self) -> RawResponse {
        self.response
    }
}

/// Every page of the service task list in turn, from page 1: after each page comes the one
/// [`TaskPage::next`] names, until a page with fewer than [`PAGE_SIZE`] tasks. A failed page
/// can be asked for again.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), monapi::Error> {
/// # let emulator = monapi_emulator::Emulator::start(Default::default()).await.unwrap();
/// # let client = monapi::Client::builder().base_url(emulator.base_url()).client_id("demo_id")
/// #     .client_secret("demo_secret").username("test@example.com").password("123456").build()?;
/// let mut pages = client.service_task_pages();
/// let mut total = 0;
/// while let Some(page) = pages.next().await? {
///     total += page.len();
/// }
/// assert_eq!(total, 120);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct TaskPages {
    client: Client,
    next: Option<u32>,
}

impl TaskPages {
    pub(crate) fn new(client: Client) -> TaskPages {
        TaskPages {
            client,
            next: Some(1),
        }
    }

    /// The page the next call fetches, or `None` when the list has ended.
    pub fn upcoming(&self) -> Option<u32> {
        self.next
    }

    /// The next page, or `None` after the last one.
    pub async fn next(&mut self) -> Result<Option<TaskPage>> {
        let Some(number) = self.next else {
            return Ok(None);
        };
        let page = self.client.service_task_page(number).await?;
        self.next = page.next();
        Ok(Some(page))
    }
}

/// The paged service task list (the rule of where it ends is [`TaskPage::next`]).
impl Client {
    /// One page of the service task list as it was sent (an empty page as `[]`), with the
    /// number of tasks it holds and the page after it, if any.
    pub async fn service_task_page(&self, page: u32) -> Result<TaskPage> {
        let response = self.execute(&Request::ServiceTasks { page }).await?;
        Ok(TaskPage::new(page, response))
    }

    /// Every page of the service task list in turn: see [`TaskPages`].
    pub fn service_task_pages(&self) -> TaskPages {
        TaskPages::new(self.clone())
    }

    /// Every service task, page after page (see [`TaskPages`] for where it ends). Pages are
    /// fetched as the stream is read.
    pub fn service_tasks_all(&self) -> impl Stream<Item = Result<ServiceTask>> + Send + 'static {
        futures::stream::try_unfold(self.service_task_pages(), |mut pages| async move {
            let Some(page) = pages.next().await? else {
                return Ok(None);
            };
            let tasks: Vec<ServiceTask> = page.response().json()?;
            Ok(Some((futures::stream::iter(tasks.into_iter().map(Ok)), pages)))
        })
        .try_flatten()
    }
}
