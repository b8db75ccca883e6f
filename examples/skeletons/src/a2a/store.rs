//! The agent's tasks in memory: each task's latest state, the push-notification configs
//! registered for it, and a broadcast of its updates to every stream open on it
//! (specification 3.5.2: every stream of a task gets the same events in the same order)
//! and, through the [`Pusher`], to every webhook registered for it, in the same order.

use std::collections::BTreeMap;
use std::sync::Mutex;

use agentwire_protocols::a2a::{
    Artifact, Message, StreamResponse, Task, TaskPushNotificationConfig, TaskState, TaskStatus,
    stream_response::Payload,
};
use agentwire_transport::tokio::sync::broadcast;

use super::push::Pusher;
use super::status::A2aError;

/// How many updates a slow stream may fall behind before it is ended.
const BACKLOG: usize = 256;

/// Whether `state` is one no task leaves (4.1.3).
pub fn is_terminal(state: i32) -> bool {
    [
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
    ]
    .iter()
    .any(|t| *t as i32 == state)
}

/// The state of a task.
pub fn state_of(task: &Task) -> i32 {
    task.status.as_ref().map_or(0, |s| s.state)
}

/// One task and the channel its updates go out on.
struct Entry {
    task: Task,
    events: broadcast::Sender<StreamResponse>,
}

#[derive(Default)]
struct Inner {
    tasks: BTreeMap<String, Entry>,
    /// Task ids, oldest first.
    order: Vec<String>,
    /// Push-notification configs by task id, then config id.
    configs: BTreeMap<String, BTreeMap<String, TaskPushNotificationConfig>>,
    next: u64,
}

/// Every task of the agent.
#[derive(Default)]
pub struct Store {
    inner: Mutex<Inner>,
    /// Where updates go besides the open streams; none, no webhook is called.
    pusher: Option<Pusher>,
}

impl Store {
    /// A store whose tasks' updates also go to their webhooks through `pusher`.
    pub fn with_pusher(pusher: Pusher) -> Self {
        Store {
            inner: Mutex::default(),
            pusher: Some(pusher),
        }
    }

    /// Its sender of push notifications, if it has one.
    pub fn pusher(&self) -> Option<&Pusher> {
        self.pusher.as_ref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere cannot leave a half-written task: every change is one assignment.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A fresh id with `prefix`.
    pub fn fresh_id(&self, prefix: &str) -> String {
        let mut inner = self.lock();
        inner.next += 1;
        format!("{prefix}-{}", inner.next)
    }

    /// A new task in `submitted`, holding the message that opened it.
    pub fn create(&self, context_id: &str, mut message: Message) -> Task {
        let id = self.fresh_id("task");
        message.task_id = id.clone();
        message.context_id = context_id.to_owned();
        let task = Task {
            id: id.clone(),
            context_id: context_id.to_owned(),
            status: Some(TaskStatus {
                state: TaskState::Submitted as i32,
                ..TaskStatus::default()
            }),
            history: vec![message],
            ..Task::default()
        };
        let (events, _) = broadcast::channel(BACKLOG);
        let mut inner = self.lock();
        inner.order.push(id.clone());
        inner.tasks.insert(
            id,
            Entry {
                task: task.clone(),
                events,
            },
        );
        task
    }

    /// The task with `id`.
    pub fn get(&self, id: &str) -> Result<Task, A2aError> {
        self.lock()
            .tasks
            .get(id)
            .map(|e| e.task.clone())
            .ok_or(A2aError::TaskNotFound)
    }

    /// Every task, newest first.
    pub fn all(&self) -> Vec<Task> {
        let inner = self.lock();
        inner
            .order
            .iter()
            .rev()
            .filter_map(|id| inner.tasks.get(id).map(|e| e.task.clone()))
            .collect()
    }

    /// The task's current state and a receiver of its later updates, taken together so
    /// that no update falls between them; refused for a task in a terminal state (3.1.6).
    pub fn subscribe(
        &self,
        id: &str,
    ) -> Result<(Task, broadcast::Receiver<StreamResponse>), A2aError> {
        let inner = self.lock();
        let entry = inner.tasks.get(id).ok_or(A2aError::TaskNotFound)?;
        if is_terminal(state_of(&entry.task)) {
            return Err(A2aError::UnsupportedOperation);
        }
        Ok((entry.task.clone(), entry.events.subscribe()))
    }

    /// Adds a client message to a live task's history (a later turn, 3.4).
    pub fn append_message(&self, id: &str, message: Message) -> Result<Task, A2aError> {
        let mut inner = self.lock();
        let entry = inner.tasks.get_mut(id).ok_or(A2aError::TaskNotFound)?;
        if is_terminal(state_of(&entry.task)) {
            return Err(A2aError::UnsupportedOperation);
        }
        entry.task.history.push(message);
        Ok(entry.task.clone())
    }

    /// Applies a status or artifact update to its task and sends it to every open stream.
    /// An update about a task in a terminal state is dropped: nothing follows one (4.1.3).
    pub fn publish(&self, update: Payload) -> Option<Task> {
        let mut inner = self.lock();
        let id = match &update {
            Payload::StatusUpdate(u) => u.task_id.clone(),
            Payload::ArtifactUpdate(u) => u.task_id.clone(),
            Payload::Task(t) => t.id.clone(),
            Payload::Message(m) => m.task_id.clone(),
        };
        let entry = inner.tasks.get_mut(&id)?;
        if is_terminal(state_of(&entry.task)) {
            return None;
        }
        match &update {
            Payload::StatusUpdate(u) => entry.task.status = u.status.clone(),
            Payload::ArtifactUpdate(u) => {
                if let Some(a) = &u.artifact {
                    merge_artifact(&mut entry.task.artifacts, a, u.append);
                }
            }
            Payload::Message(m) => entry.task.history.push(m.clone()),
            Payload::Task(t) => entry.task = t.clone(),
        }
        let task = entry.task.clone();
        let response = StreamResponse {
            payload: Some(update),
        };
        // Queued under the lock, so webhooks get a task's updates in the order streams do.
        if let (Some(pusher), Some(configs)) = (&self.pusher, inner.configs.get(&id)) {
            let configs: Vec<_> = configs.values().cloned().collect();
            pusher.notify(&configs, &response);
        }
        // No receiver is no error: nobody streams this task right now.
        if let Some(entry) = inner.tasks.get(&id) {
            let _ = entry.events.send(response);
        }
        Some(task)
    }

    /// Stores a push-notification config of an existing task, giving it an id if it has none.
    pub fn put_config(
        &self,
        mut config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        if config.id.is_empty() {
            config.id = self.fresh_id("config");
        }
        let mut inner = self.lock();
        if !inner.tasks.contains_key(&config.task_id) {
            return Err(A2aError::TaskNotFound);
        }
        inner
            .configs
            .entry(config.task_id.clone())
            .or_default()
            .insert(config.id.clone(), config.clone());
        Ok(config)
    }

    /// Stores a config that came with a message (3.2.2's `task_push_notification_config`)
    /// and sends its webhook the task as it stands, as a stream about the task opens with
    /// it (3.1.6), before any later update.
    pub fn put_config_with_task(
        &self,
        config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let config = self.put_config(config)?;
        let inner = self.lock();
        if let (Some(pusher), Some(entry)) = (&self.pusher, inner.tasks.get(&config.task_id)) {
            let first = StreamResponse {
                payload: Some(Payload::Task(entry.task.clone())),
            };
            pusher.notify(std::slice::from_ref(&config), &first);
        }
        Ok(config)
    }

    /// The configs of a task, in id order.
    pub fn configs(&self, task_id: &str) -> Result<Vec<TaskPushNotificationConfig>, A2aError> {
        let inner = self.lock();
        if !inner.tasks.contains_key(task_id) {
            return Err(A2aError::TaskNotFound);
        }
        Ok(inner
            .configs
            .get(task_id)
            .map(|c| c.values().cloned().collect())
            .unwrap_or_default())
    }

    /// Removes one config; `false` when the task has no such config.
    pub fn delete_config(&self, task_id: &str, id: &str) -> Result<bool, A2aError> {
        let mut inner = self.lock();
        if !inner.tasks.contains_key(task_id) {
            return Err(A2aError::TaskNotFound);
        }
        Ok(inner
            .configs
            .get_mut(task_id)
            .is_some_and(|c| c.remove(id).is_some()))
    }
}

/// Adds an artifact to a task's list: a chunk with `append` extends the artifact of the same
/// id (4.2.2), any other replaces it or is added at the end.
fn merge_artifact(artifacts: &mut Vec<Artifact>, artifact: &Artifact, append: bool) {
    match artifacts
        .iter_mut()
        .find(|a| a.artifact_id == artifact.artifact_id)
    {
        Some(known) if append => known.parts.extend(artifact.parts.iter().cloned()),
        Some(known) => *known = artifact.clone(),
        None => artifacts.push(artifact.clone()),
    }
}
