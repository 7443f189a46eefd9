//! The paged lists of the service (its service tasks and its site tasks), page by page: where
//! a list ends is decided here, once, for the typed streams, the Python and Node iterators and
//! the command line.

use futures::{Stream, TryStreamExt};
use serde::de::DeserializeOwned;

use crate::model::{ServiceTask, SiteTask};
use crate::shape::{count_items, records};
use crate::transport::RawResponse;
use crate::{Client, Request, Result};

/// Records per page of the paged lists (the service task list's documented size; the site
/// task list's is not published and is taken to be the same).
pub const PAGE_SIZE: usize = 50;

/// A paged list of the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskList {
    /// The service task list (`GET /v2/service/lists.json`).
    Service,
    /// The site task list (`GET /v2/site/lists.json`).
    Site,
}

impl TaskList {
    fn request(self, page: u32) -> Request {
        match self {
            TaskList::Service => Request::ServiceTasks { page },
            TaskList::Site => Request::SiteTasks { page },
        }
    }
}

/// One page of a paged list, as the service sent it: a JSON list of tasks (an empty page,
/// which the service may write `[]`, `{}` or `null`, is `[]`). A page of the site task list
/// may also be an object keyed by task ids, as PHP's keyed arrays are: [`records`](TaskPage::records)
/// gives either as a list. Any other answer is an [`Error::Decode`](crate::Error::Decode).
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

    /// The page's tasks as a JSON list (a keyed page's values, in order): what an iterator
    /// over the list yields.
    pub fn records(&self) -> RawResponse {
        self.response.with_body(records(self.response.body()))
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
    list: TaskList,
    next: Option<u32>,
}

impl TaskPages {
    pub(crate) fn new(client: Client, list: TaskList) -> TaskPages {
        TaskPages {
            client,
            list,
            next: Some(1),
        }
    }

    /// The page the next call fetches, or `None` when the list has ended.
    pub fn upcoming(&self) -> Option<u32> {
        self.next
    }

    /// The next page, or `None` after the last one.
    ///
    /// # Errors
    ///
    /// Those of [`Client::task_page`]. The page that failed is asked for again by the next call
    /// ([`upcoming`](TaskPages::upcoming) still names it).
    pub async fn next(&mut self) -> Result<Option<TaskPage>> {
        let Some(number) = self.next else {
            return Ok(None);
        };
        let page = self.client.task_page(self.list, number).await?;
        self.next = page.next();
        Ok(Some(page))
    }
}

/// The paged lists (the rule of where they end is [`TaskPage::next`]).
impl Client {
    /// One page (from 1) of `list` as it was sent (an empty page as `[]`), with the number of
    /// tasks it holds and the page after it, if any.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `page` is 0;
    /// [`Error::Decode`](crate::Error::Decode) when the page is neither a list nor an object of
    /// tasks; otherwise those of every call (see [`Client`](crate::Client#errors)).
    pub async fn task_page(&self, list: TaskList, page: u32) -> Result<TaskPage> {
        let response = self.execute(&list.request(page)).await?;
        Ok(TaskPage::new(page, response))
    }

    /// One page of the service task list: see [`Client::task_page`].
    ///
    /// # Errors
    ///
    /// Those of [`Client::task_page`].
    pub async fn service_task_page(&self, page: u32) -> Result<TaskPage> {
        self.task_page(TaskList::Service, page).await
    }

    /// Every page of `list` in turn: see [`TaskPages`].
    pub fn task_pages(&self, list: TaskList) -> TaskPages {
        TaskPages::new(self.clone(), list)
    }

    /// Every page of the service task list in turn: see [`TaskPages`].
    pub fn service_task_pages(&self) -> TaskPages {
        self.task_pages(TaskList::Service)
    }

    /// Every service task, page after page (see [`TaskPages`] for where it ends). Pages are
    /// fetched as the stream is read.
    pub fn service_tasks_all(&self) -> impl Stream<Item = Result<ServiceTask>> + Send + 'static + use<> {
        self.all(TaskList::Service)
    }

    /// Every site task, page after page, as [`Client::service_tasks_all`] does.
    pub fn site_tasks_all(&self) -> impl Stream<Item = Result<SiteTask>> + Send + 'static + use<> {
        self.all(TaskList::Site)
    }

    fn all<T: DeserializeOwned + Send + 'static>(
        &self,
        list: TaskList,
    ) -> impl Stream<Item = Result<T>> + Send + 'static + use<T> {
        futures::stream::try_unfold(self.task_pages(list), |mut pages| async move {
            let Some(page) = pages.next().await? else {
                return Ok(None);
            };
            let tasks: Vec<T> = page.records().json()?;
            Ok(Some((futures::stream::iter(tasks.into_iter().map(Ok)), pages)))
        })
        .try_flatten()
    }
}
