//! The chess-server side of the daemon: transport (TCP, TLS through rustls, FICS
//! timeseal), the line/prompt codec, server lines -> typed `ServerEvent`s, typed
//! `ServerCommand`s -> wire text, login and session set-up, reconnect backoff, and
//! the server differences in `server`. It makes no game decision and never touches
//! the engine; the daemon in `bot` does both.

pub mod codec;
pub mod command;
pub mod connection;
pub mod datagram;
pub mod event;
pub mod icc;
pub mod parse;
pub mod patterns;
pub mod server;
pub mod timeseal;

pub use command::{move_text, ServerCommand};
pub use connection::{Backoff, ConnectConfig, Connection, Incoming, LoginError, Secret, Writer};
pub use event::{
    Challenge, ClockUnit, GameEnd, GameMoves, GamePosition, Relation, ServerEvent, Style12,
};
pub use parse::LineParser;
pub use server::{ServerKind, ServerProfile};
