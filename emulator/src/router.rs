//! The routes: the API endpoints, each behind the layer that counts, delays and faults its
//! requests (a wrong method on their paths is a counted 405), the `/_emulator/` test hooks,
//! and a 404 for any other path.

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::middleware::from_fn_with_state;
use axum::response::Response;
use axum::routing::{get, post, MethodRouter};
use axum::Router;

use crate::app::{App, Endpoint};
use crate::auth::token;
use crate::faults::api_layer;
use crate::handlers::{
    agents, create, create_service, distribution, groups, monitors, service_report, service_tasks,
    site_report, site_task, site_tasks, users,
};
use crate::hooks;
use crate::response::{api_error, MAX_FORM_BYTES};

pub(crate) fn router(app: Arc<App>) -> Router {
    let api = |endpoint: Endpoint, route: MethodRouter<Arc<App>>| {
        route
            .fallback(method_not_allowed)
            .layer(from_fn_with_state((app.clone(), endpoint), api_layer))
    };
    Router::new()
        .route("/v2/oauth/token.json", api(Endpoint::Token, post(token)))
        .route("/v2/server/create.json", api(Endpoint::Create, post(create)))
        .route(
            "/v2/service/lists.json",
            api(Endpoint::ServiceTasks, get(service_tasks)),
        )
        .route("/v2/agent/lists.json", api(Endpoint::Agents, get(agents)))
        .route(
            "/v2/service/report/{file}",
            api(Endpoint::ServiceReport, get(service_report)),
        )
        .route(
            "/v2/site/report/{file}",
            api(Endpoint::SiteReport, get(site_report)),
        )
        .route(
            "/v2/site/respose_time_distribute/{file}",
            api(Endpoint::Distribution, get(distribution)),
        )
        .route("/v2/site/lists.json", api(Endpoint::SiteTasks, get(site_tasks)))
        .route("/v2/site/info/{file}", api(Endpoint::SiteTask, get(site_task)))
        .route("/v2/site/monitors.json", api(Endpoint::Monitors, get(monitors)))
        .route("/v2/user/lists.json", api(Endpoint::Users, get(users)))
        .route("/v2/user/organization.json", api(Endpoint::Groups, get(groups)))
        .route(
            "/v2/service/create.json",
            api(Endpoint::CreateService, post(create_service)),
        )
        .merge(hooks::routes())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
        .with_state(app)
}

async fn method_not_allowed() -> Response {
    api_error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
}

async fn not_found() -> Response {
    api_error(StatusCode::NOT_FOUND, "no such endpoint")
}
