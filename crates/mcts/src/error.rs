use crate::config::SearchConfigError;

/// An evaluator could not evaluate a batch.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The backend (a network, a remote service, ...) failed.
    #[error("{context}")]
    Backend {
        /// What the evaluator was doing, e.g. "forward pass of model.pt".
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The evaluator cannot handle this batch (e.g. a state it cannot encode).
    #[error("{0}")]
    Unsupported(String),
    /// The search was stopped from outside ([`crate::StoppableEvaluator`]).
    #[error("the search was stopped")]
    Stopped,
}

impl EvalError {
    /// Wraps a backend error with a description of what failed.
    pub fn backend(
        context: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> EvalError {
        EvalError::Backend {
            context: context.into(),
            source: source.into(),
        }
    }
}

/// A search could not run or could not finish.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("evaluation failed")]
    Eval(#[from] EvalError),
    /// The evaluator wrote something unusable for one item of the batch.
    #[error("evaluator output for batch item {item} is invalid: {problem}")]
    InvalidEvaluation { item: usize, problem: String },
    #[error(transparent)]
    Config(#[from] SearchConfigError),
    #[error("the game is over, there is nothing to search")]
    GameOver,
    #[error("action {action} is not legal in the current position")]
    IllegalAction { action: usize },
    /// A [`crate::Game`] implementation reported no legal actions for a state
    /// that is not over.
    #[error("a position that is not over has no legal actions (bug in the Game implementation)")]
    NoLegalActions,
    /// `advance` was called while a search of the current position was under way
    /// (its simulations were gathered by a driver but not finished).
    #[error("a search of the current position is still in progress")]
    SearchInProgress,
    #[error("the search tree grew past {max} nodes")]
    TreeTooLarge { max: usize },
}
