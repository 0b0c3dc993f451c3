//! The engine: search, transposition table, move ordering, time management, Lazy SMP
//! threads and typed search events, behind `EngineHandle`, its only API. The engine
//! never formats text, reads stdin or touches a socket; front ends do.

pub mod bench;
pub mod events;
pub mod handle;
pub mod limits;
pub mod movepick;
pub mod search;
pub mod searcher;
pub mod time;
pub mod tt;

pub use events::{Bound, EventSink, SearchEvent, SearchInfo, SearchResult};
pub use handle::EngineHandle;
pub use limits::{ClockLimits, Extensions, SearchConfig, SearchLimits};
pub use search::{mate_in, MATE, MATE_IN_MAX};
pub use searcher::Searcher;
