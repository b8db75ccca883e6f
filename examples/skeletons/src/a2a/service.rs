//! The echo agent's answer to each rpc of `lf.a2a.v1.A2AService` (specification 3.1, gRPC
//! binding 10.4), every A2A error as the status 5.4 maps it to.

use std::sync::Arc;

use agentwire_protocols::a2a::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    ListTasksRequest, ListTasksResponse, SendMessageRequest, SendMessageResponse,
    SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState, TaskStatus,
    TaskStatusUpdateEvent, send_message_response, stream_response::Payload,
};
use agentwire_protocols::skeletons::a2a::a2_a_service_server::A2AService;
use agentwire_transport::tonic::{self, Request, Response, Status};

use super::{A2aError, EchoAgent, Updates, is_terminal, state_of, stream_of};

/// The page size when a `ListTasks` names none, and the largest it may name (3.1.4).
const PAGE_DEFAULT: usize = 50;
const PAGE_MAX: usize = 100;

/// The last `n` messages of a task's history, as `history_length` asks (3.2.4).
fn trim_history(task: &mut Task, n: Option<i32>) {
    if let Some(n) = n {
        let keep = usize::try_from(n.max(0)).unwrap_or(0);
        let drop = task.history.len().saturating_sub(keep);
        task.history.drain(..drop);
    }
}

/// The offset a page token stands for (this agent's tokens are offsets).
fn page_offset(token: &str) -> Result<usize, Status> {
    if token.is_empty() {
        return Ok(0);
    }
    token
        .parse()
        .map_err(|_| A2aError::InvalidParams.status(format!("unknown page token `{token}`")))
}

/// The page size a request asks for, within 1..=100.
fn page_size(asked: Option<i32>) -> Result<usize, Status> {
    match asked {
        None => Ok(PAGE_DEFAULT),
        Some(n) => usize::try_from(n)
            .ok()
            .filter(|n| (1..=PAGE_MAX).contains(n))
            .ok_or_else(|| {
                A2aError::InvalidParams.status(format!("page_size {n} is not within 1 to 100"))
            }),
    }
}

#[tonic::async_trait]
impl A2AService for EchoAgent {
    async fn send_message(
        &self,
        request: Request<SendMessageRequest>,
    ) -> Result<Response<SendMessageResponse>, Status> {
        let (task, text) = self.accept(request.into_inner())?;
        // The unary call answers once the work is done, or left waiting (3.1.1).
        EchoAgent::work(Arc::clone(&self.store), task.clone(), text).await;
        let task = self
            .store
            .get(&task.id)
            .map_err(|e| e.status("task vanished"))?;
        Ok(Response::new(SendMessageResponse {
            payload: Some(send_message_response::Payload::Task(task)),
        }))
    }

    type SendStreamingMessageStream = Updates;

    async fn send_streaming_message(
        &self,
        request: Request<SendMessageRequest>,
    ) -> Result<Response<Updates>, Status> {
        let (task, text) = self.accept(request.into_inner())?;
        // Subscribed before the work starts, so the stream misses none of it.
        let (first, updates) = self
            .store
            .subscribe(&task.id)
            .map_err(|e| e.status(format!("task `{}`", task.id)))?;
        agentwire_transport::tokio::spawn(EchoAgent::work(Arc::clone(&self.store), task, text));
        Ok(Response::new(stream_of(first, updates)))
    }

    async fn get_task(&self, request: Request<GetTaskRequest>) -> Result<Response<Task>, Status> {
        let r = request.into_inner();
        let mut task = self
            .store
            .get(&r.id)
            .map_err(|e| e.status(format!("task `{}` not found", r.id)))?;
        trim_history(&mut task, r.history_length);
        Ok(Response::new(task))
    }

    async fn list_tasks(
        &self,
        request: Request<ListTasksRequest>,
    ) -> Result<Response<ListTasksResponse>, Status> {
        let r = request.into_inner();
        let size = page_size(r.page_size)?;
        let offset = page_offset(&r.page_token)?;
        let matching: Vec<Task> = self
            .store
            .all()
            .into_iter()
            .filter(|t| r.context_id.is_empty() || t.context_id == r.context_id)
            .filter(|t| r.status == 0 || state_of(t) == r.status)
            .collect();
        let total = matching.len();
        let tasks: Vec<Task> = matching
            .into_iter()
            .skip(offset)
            .take(size)
            .map(|mut t| {
                trim_history(&mut t, r.history_length);
                if !r.include_artifacts.unwrap_or(false) {
                    t.artifacts.clear();
                }
                t
            })
            .collect();
        let next = offset + tasks.len();
        Ok(Response::new(ListTasksResponse {
            tasks,
            next_page_token: if next < total {
                next.to_string()
            } else {
                String::new()
            },
            page_size: i32::try_from(size).unwrap_or(i32::MAX),
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
        }))
    }

    async fn cancel_task(
        &self,
        request: Request<CancelTaskRequest>,
    ) -> Result<Response<Task>, Status> {
        let id = request.into_inner().id;
        let task = self
            .store
            .get(&id)
            .map_err(|e| e.status(format!("task `{id}` not found")))?;
        if is_terminal(state_of(&task)) {
            return Err(A2aError::TaskNotCancelable.status(format!("task `{id}` has ended")));
        }
        let canceled = Payload::StatusUpdate(TaskStatusUpdateEvent {
            task_id: id.clone(),
            context_id: task.context_id.clone(),
            status: Some(TaskStatus {
                state: TaskState::Canceled as i32,
                ..TaskStatus::default()
            }),
            metadata: None,
        });
        // `None`: the task ended between the two looks.
        let task = self
            .store
            .publish(canceled)
            .ok_or_else(|| A2aError::TaskNotCancelable.status(format!("task `{id}` has ended")))?;
        Ok(Response::new(task))
    }

    type SubscribeToTaskStream = Updates;

    async fn subscribe_to_task(
        &self,
        request: Request<SubscribeToTaskRequest>,
    ) -> Result<Response<Updates>, Status> {
        let id = request.into_inner().id;
        let (first, updates) = self.store.subscribe(&id).map_err(|e| match e {
            A2aError::UnsupportedOperation => e.status(format!("task `{id}` has ended")),
            _ => e.status(format!("task `{id}` not found")),
        })?;
        Ok(Response::new(stream_of(first, updates)))
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<TaskPushNotificationConfig>,
    ) -> Result<Response<TaskPushNotificationConfig>, Status> {
        let config = request.into_inner();
        if config.url.is_empty() {
            return Err(A2aError::InvalidParams.status("`url` is required"));
        }
        let task_id = config.task_id.clone();
        let config = self
            .store
            .put_config(config)
            .map_err(|e| e.status(format!("task `{task_id}` not found")))?;
        Ok(Response::new(config))
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<TaskPushNotificationConfig>, Status> {
        let r = request.into_inner();
        let configs = self
            .store
            .configs(&r.task_id)
            .map_err(|e| e.status(format!("task `{}` not found", r.task_id)))?;
        configs
            .into_iter()
            .find(|c| c.id == r.id)
            .map(Response::new)
            // 3.1.8: a config that does not exist is a TaskNotFoundError.
            .ok_or_else(|| {
                A2aError::TaskNotFound
                    .status(format!("no config `{}` on task `{}`", r.id, r.task_id))
            })
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<ListTaskPushNotificationConfigsResponse>, Status> {
        let r = request.into_inner();
        let configs = self
            .store
            .configs(&r.task_id)
            .map_err(|e| e.status(format!("task `{}` not found", r.task_id)))?;
        Ok(Response::new(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token: String::new(),
        }))
    }

    async fn get_extended_agent_card(
        &self,
        _request: Request<GetExtendedAgentCardRequest>,
    ) -> Result<Response<AgentCard>, Status> {
        // The extended card is the public one plus what only callers who ask see.
        let mut card = self.card.clone();
        card.description.push_str(" (extended card)");
        Ok(Response::new(card))
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pbjson_types::Empty>, Status> {
        let r = request.into_inner();
        match self.store.delete_config(&r.task_id, &r.id) {
            Ok(true) => Ok(Response::new(Default::default())),
            Ok(false) => Err(A2aError::TaskNotFound
                .status(format!("no config `{}` on task `{}`", r.id, r.task_id))),
            Err(e) => Err(e.status(format!("task `{}` not found", r.task_id))),
        }
    }
}
