//! One connection to a server: transport (TCP with a connect timeout, TLS through
//! rustls when configured, timeseal when configured), a reader task that frames and
//! parses what arrives and answers timeseal pings at once, a writer task that
//! stamps and writes what the daemon sends, the login dialogue and the session
//! set-up. It knows nothing of games or the engine.
//!
//! The wire transcript goes to tracing target `kibitzer::wire` at debug level; the
//! password is written as `********`.

use super::codec::{IcsCodec, IcsItem};
use super::command::ServerCommand;
use super::parse::{LineParser, ServerEvent};
use super::server::{ServerKind, ServerProfile};
use super::timeseal::{self, Version};
use futures_util::StreamExt;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tracing::{debug, info, warn};

pub use crate::net::{Backoff, Secret};

/// How to reach and enter a server.
#[derive(Clone, Debug)]
pub struct ConnectConfig {
    pub host: String,
    pub port: u16,
    pub kind: ServerKind,
    pub tls: bool,
    pub timeseal: Option<Version>,
    pub connect_timeout: Duration,
    pub login_timeout: Duration,
    pub max_line: usize,
    /// Login name; `guest` (or empty) for a guest account.
    pub handle: String,
    pub password: Option<Secret>,
    /// `set interface` text.
    pub interface: String,
    /// Finger notes.
    pub finger: Vec<String>,
}

/// Why a connection or login failed.
#[derive(Debug, Error)]
pub enum LoginError {
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        addr: String,
        source: std::io::Error,
    },
    #[error("connecting to {0} timed out")]
    ConnectTimeout(String),
    #[error("TLS: {0}")]
    Tls(String),
    #[error("the server rejected the password for '{0}'")]
    BadPassword(String),
    #[error("'{0}' is a registered name and no password is configured (set KIBITZER_PASSWORD or ics.password_file)")]
    MissingPassword(String),
    #[error("the name '{0}' is already logged in")]
    NameInUse(String),
    #[error("the server refused the name '{name}': {why}")]
    BadName { name: String, why: String },
    #[error("login did not complete within {0:?}")]
    Timeout(Duration),
    #[error("the server closed the connection during login")]
    Closed,
    /// The server took the timeseal hello for a login name: it has no timeseal.
    #[error("the server does not speak timeseal: it took the timeseal hello for a login name ({why}); set ics.timeseal = \"off\" for this server")]
    NoTimeseal { why: String },
}

impl LoginError {
    /// Credentials are wrong: retrying cannot help.
    pub fn is_credentials(&self) -> bool {
        matches!(
            self,
            LoginError::BadPassword(_)
                | LoginError::MissingPassword(_)
                | LoginError::BadName { .. }
        )
    }
}

/// Something from the server, with the time the reader task got it.
#[derive(Clone, Debug)]
pub enum Incoming {
    Event(ServerEvent, Instant),
    /// The connection ended (EOF or an error).
    Closed(String),
}

enum WireOut {
    Line(String),
    Secret(String),
    Raw(Vec<u8>, &'static str),
    /// A typed command for a server that is not line-based (see `Writer::typed`).
    Typed(ServerCommand),
}

/// Sends commands to the server, each rendered by the server's profile (the one
/// place where text is neutralised); cheap to clone, never blocks.
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::UnboundedSender<WireOut>,
    last_sent: Arc<Mutex<Instant>>,
    profile: Arc<ServerProfile>,
    /// Commands the server answered with `Command not found.`.
    missing: Arc<Mutex<HashSet<String>>>,
    /// Hands commands over typed instead of rendering them (`Writer::typed`).
    typed: bool,
}

/// The typed commands of a `Writer::typed`.
pub struct TypedCommands(mpsc::UnboundedReceiver<WireOut>);

impl TypedCommands {
    /// The next command; `None` when every writer is gone.
    pub async fn recv(&mut self) -> Option<ServerCommand> {
        loop {
            match self.0.recv().await? {
                WireOut::Typed(c) => return Some(c),
                _ => continue,
            }
        }
    }
}

impl Writer {
    /// A writer for a server that is not line-based (the Lichess bridge): commands
    /// are handed over typed, unrendered, to the returned receiver, whose owner
    /// turns them into that server's requests. The profile says what the game task
    /// may use (clock unit, autoflag).
    pub fn typed(profile: ServerProfile) -> (Writer, TypedCommands) {
        let (tx, rx) = mpsc::unbounded_channel();
        let w = Writer {
            tx,
            last_sent: Arc::new(Mutex::new(Instant::now())),
            profile: Arc::new(profile),
            missing: Arc::new(Mutex::new(HashSet::new())),
            typed: true,
        };
        (w, TypedCommands(rx))
    }

    /// Renders and sends `cmd` (a warning, and nothing sent, when it cannot be
    /// rendered safely).
    pub fn send(&self, cmd: &ServerCommand) {
        self.try_send(cmd);
    }

    /// `send`, telling whether anything was sent.
    pub fn try_send(&self, cmd: &ServerCommand) -> bool {
        if self.typed {
            *self.last_sent.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            return self.tx.send(WireOut::Typed(cmd.clone())).is_ok();
        }
        let missing = self
            .missing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match self.profile.render(cmd, &|c| missing.contains(c)) {
            Ok(line) => {
                self.line(&line);
                true
            }
            Err(e) => {
                warn!("not sent: {e}");
                false
            }
        }
    }

    /// Notes that the server lacks `cmd`; true the first time (to log it once).
    pub fn note_missing(&self, cmd: &str) -> bool {
        let mut m = self.missing.lock().unwrap_or_else(|e| e.into_inner());
        m.len() < 200 && m.insert(cmd.to_ascii_lowercase())
    }

    /// Whether the server has `cmd`, as far as its profile and its answers tell.
    pub fn has_command(&self, cmd: &str) -> bool {
        self.profile.has_command(cmd)
            && !self
                .missing
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(cmd)
    }

    /// The server's profile.
    pub fn profile(&self) -> &ServerProfile {
        &self.profile
    }

    /// A raw line: only the login dialogue uses it (the name, an empty line).
    fn line(&self, text: &str) {
        *self.last_sent.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        let _ = self.tx.send(WireOut::Line(text.to_string()));
    }

    fn secret(&self, text: &str) {
        let _ = self.tx.send(WireOut::Secret(text.to_string()));
    }

    /// When the daemon last sent a command.
    pub fn last_sent(&self) -> Instant {
        *self.last_sent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True while the writer task runs.
    pub fn is_open(&self) -> bool {
        !self.tx.is_closed()
    }
}

type BoxRead = Box<dyn AsyncRead + Send + Unpin>;
type BoxWrite = Box<dyn AsyncWrite + Send + Unpin>;

async fn open(cfg: &ConnectConfig) -> Result<(BoxRead, BoxWrite), LoginError> {
    let addr = format!("{}:{}", cfg.host, cfg.port);
    let tcp = match tokio::time::timeout(
        cfg.connect_timeout,
        tokio::net::TcpStream::connect(addr.as_str()),
    )
    .await
    {
        Err(_) => return Err(LoginError::ConnectTimeout(addr)),
        Ok(Err(source)) => return Err(LoginError::Connect { addr, source }),
        Ok(Ok(s)) => s,
    };
    let _ = tcp.set_nodelay(true);
    if cfg.tls {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| LoginError::Tls(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from(cfg.host.clone())
            .map_err(|e| LoginError::Tls(e.to_string()))?;
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let stream = tokio::time::timeout(cfg.connect_timeout, connector.connect(name, tcp))
            .await
            .map_err(|_| LoginError::ConnectTimeout(addr.clone()))?
            .map_err(|e| LoginError::Tls(e.to_string()))?;
        let (r, w) = tokio::io::split(stream);
        return Ok((Box::new(r), Box::new(w)));
    }
    let (r, w) = tcp.into_split();
    Ok((Box::new(r), Box::new(w)))
}

/// A live connection: events in, commands out.
pub struct Connection {
    pub events: mpsc::UnboundedReceiver<Incoming>,
    pub writer: Writer,
    pub profile: ServerProfile,
    /// The handle we are logged in as (after `login`).
    pub handle: String,
    /// What the server said between the password and the first prompt (the login
    /// banner's list of opponents with adjourned games): the session's first events.
    pub early: Vec<(ServerEvent, Instant)>,
    last_input: Arc<Mutex<Instant>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn stamp(start: Instant) -> u32 {
    1 + (start.elapsed().as_millis() as u64 % 2_000_000_000) as u32
}

impl Connection {
    /// Opens the transport and starts the reader and writer tasks (no login yet).
    pub async fn open(cfg: &ConnectConfig) -> Result<Connection, LoginError> {
        let (read, mut write) = open(cfg).await?;
        let profile = ServerProfile::new(cfg.kind);
        let (wtx, mut wrx) = mpsc::unbounded_channel::<WireOut>();
        let (etx, erx) = mpsc::unbounded_channel::<Incoming>();
        let start = Instant::now();
        let seal = cfg.timeseal.filter(|_| profile.timeseal);
        if cfg.timeseal.is_some() && seal.is_none() {
            info!(
                "{} does not read FICS timeseal: connecting without it",
                profile.kind.name()
            );
        }
        let writer_task = tokio::spawn(async move {
            let mut offset: u8 = rand::random::<u8>() & 0x7f;
            while let Some(out) = wrx.recv().await {
                let (bytes, shown) = match out {
                    WireOut::Raw(b, what) => (b, what.to_string()),
                    WireOut::Typed(_) => continue,
                    WireOut::Line(l) => {
                        let b = match seal {
                            Some(_) => {
                                offset = offset.wrapping_add(1) & 0x7f;
                                timeseal::encode(&l, stamp(start), offset)
                            }
                            None => format!("{l}\n").into_bytes(),
                        };
                        (b, l)
                    }
                    WireOut::Secret(l) => {
                        let b = match seal {
                            Some(_) => timeseal::encode(&l, stamp(start), offset),
                            None => format!("{l}\n").into_bytes(),
                        };
                        (b, "********".to_string())
                    }
                };
                debug!(target: "kibitzer::wire", ">> {shown}");
                if write.write_all(&bytes).await.is_err() || write.flush().await.is_err() {
                    break;
                }
            }
            let _ = write.shutdown().await;
        });
        let last_input = Arc::new(Mutex::new(Instant::now()));
        let li = Arc::clone(&last_input);
        let ping_tx = wtx.clone();
        let max_line = cfg.max_line;
        let prompt = profile.prompt;
        let profile_kind = profile.kind;
        let reader_task = tokio::spawn(async move {
            let mut codec = IcsCodec::new(max_line);
            codec.add_prompt(prompt);
            let mut frames = FramedRead::new(read, codec);
            let mut parser = LineParser::for_server(profile_kind);
            let why = loop {
                // A line held for a continuation waits a moment for the next bytes,
                // no longer (the server sends its prompt right after its output).
                let next = if frames.decoder().has_held() {
                    match tokio::time::timeout(Duration::from_millis(100), frames.next()).await {
                        Ok(n) => n,
                        Err(_) => frames.decoder_mut().take_held().map(Ok),
                    }
                } else {
                    frames.next().await
                };
                match next {
                    None => break "the server closed the connection".to_string(),
                    Some(Err(e)) => break format!("read error: {e}"),
                    Some(Ok(item)) => {
                        let now = Instant::now();
                        *li.lock().unwrap_or_else(|e| e.into_inner()) = now;
                        let evs = match item {
                            IcsItem::Ping => {
                                // Answered here, before anything else is looked at.
                                if seal.is_some() {
                                    let b = timeseal::encode(timeseal::PING_REPLY, stamp(start), 1);
                                    let _ = ping_tx.send(WireOut::Raw(b, "[timeseal ping reply]"));
                                }
                                continue;
                            }
                            IcsItem::Overlong(n) => {
                                warn!("dropped a server line longer than {n} bytes");
                                continue;
                            }
                            IcsItem::Prompt(p) => {
                                debug!(target: "kibitzer::wire", "<< {p}");
                                vec![parser.prompt(&p)]
                            }
                            IcsItem::Line(l) => {
                                debug!(target: "kibitzer::wire", "<< {l}");
                                vec![parser.line(&l)]
                            }
                            IcsItem::Datagram(d) => {
                                debug!(target: "kibitzer::wire", "<< ^Y({})", d.replace('\u{19}', "^Y"));
                                parser.datagram(&d)
                            }
                            IcsItem::BadDatagram(d) => {
                                warn!("a cut-short datagram from the server was dropped");
                                parser.bad_datagram(&d)
                            }
                            IcsItem::UnitStart(h) => {
                                debug!(target: "kibitzer::wire", "<< ^Y[{h}");
                                parser.unit_start();
                                continue;
                            }
                            IcsItem::UnitEnd => parser.unit_end(),
                        };
                        for ev in evs {
                            if etx.send(Incoming::Event(ev, now)).is_err() {
                                return;
                            }
                        }
                    }
                }
            };
            let _ = etx.send(Incoming::Closed(why));
        });
        let writer = Writer {
            tx: wtx,
            last_sent: Arc::new(Mutex::new(Instant::now())),
            profile: Arc::new(profile.clone()),
            missing: Arc::new(Mutex::new(HashSet::new())),
            typed: false,
        };
        if let Some(v) = seal {
            let hello = timeseal::hello(v, "openseal");
            let b = timeseal::encode(&hello, stamp(start), 0);
            let _ = writer.tx.send(WireOut::Raw(b, "[timeseal hello]"));
        }
        Ok(Connection {
            events: erx,
            writer,
            profile,
            handle: String::new(),
            early: Vec::new(),
            last_input,
            tasks: vec![writer_task, reader_task],
        })
    }

    /// When the reader last got anything from the server.
    pub fn last_input(&self) -> Instant {
        *self.last_input.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Logs in (registered or guest) and returns the handle the server gave us.
    pub async fn login(&mut self, cfg: &ConnectConfig) -> Result<String, LoginError> {
        let deadline = tokio::time::Instant::now() + cfg.login_timeout;
        let guest = cfg.handle.is_empty() || cfg.handle.eq_ignore_ascii_case("guest");
        let name = if guest {
            self.profile.guest_login.to_string()
        } else {
            cfg.handle.clone()
        };
        let mut sent_name = 0;
        let mut extra_prompts = 0usize;
        let mut entered = false;
        let mut handle = name.clone();
        let mut last_bad: Option<String> = None;
        loop {
            let next = tokio::time::timeout_at(deadline, self.events.recv()).await;
            let (ev, at) = match next {
                Err(_) => return Err(LoginError::Timeout(cfg.login_timeout)),
                Ok(None) | Ok(Some(Incoming::Closed(_))) => return Err(LoginError::Closed),
                Ok(Some(Incoming::Event(ev, at))) => (ev, at),
            };
            match ev {
                ServerEvent::LoginPrompt => {
                    if let Some(why) = last_bad.take() {
                        if cfg.timeseal.is_some() && why.contains("letters") {
                            // Our name is letters only: what was refused is the
                            // timeseal hello (and our encoded name after it).
                            return Err(LoginError::NoTimeseal { why });
                        }
                        return Err(LoginError::BadName { name, why });
                    }
                    if !crate::ics::command::valid_word(&name) {
                        return Err(LoginError::BadName {
                            name: crate::ics::command::printable(&name, 40),
                            why: "a login name is letters and digits only".into(),
                        });
                    }
                    if sent_name > 0 && extra_prompts > 0 {
                        // ICC may ask again after each `level1=`/`level2settings=`
                        // line it took before the name.
                        extra_prompts -= 1;
                        continue;
                    }
                    if sent_name > 0 {
                        return Err(LoginError::BadName {
                            name,
                            why: "the server asked for a login name again".into(),
                        });
                    }
                    sent_name += 1;
                    let preamble = self.profile.login_preamble();
                    extra_prompts = preamble.len();
                    for l in &preamble {
                        self.writer.line(l);
                    }
                    self.writer.line(&name);
                }
                ServerEvent::PasswordPrompt => match &cfg.password {
                    Some(p) if !p.is_empty() => {
                        self.writer.secret(p.expose());
                        entered = true;
                    }
                    _ => return Err(LoginError::MissingPassword(name)),
                },
                ServerEvent::GuestPrompt { name: given } => {
                    if !given.is_empty() {
                        handle = given;
                    }
                    self.writer.line("");
                    entered = true;
                }
                ServerEvent::InvalidPassword => return Err(LoginError::BadPassword(name)),
                ServerEvent::NameInUse => return Err(LoginError::NameInUse(handle)),
                ServerEvent::BadName { why } => last_bad = Some(why),
                ServerEvent::SessionStarted { handle: h } => {
                    handle = h;
                    break;
                }
                ServerEvent::KickedOther => {
                    warn!("another session of {name} was logged in and has been kicked out")
                }
                ServerEvent::Prompt if entered => break,
                // The banner after the password: the list of opponents with
                // adjourned games, notifications. Kept for the session.
                ev if entered => self.early.push((ev, at)),
                _ => {}
            }
        }
        self.handle = handle.clone();
        info!(handle = %handle, server = self.profile.kind.name(), "logged in");
        Ok(handle)
    }

    /// Sends the session set-up.
    pub fn setup(&self, cfg: &ConnectConfig) {
        for c in self.profile.setup_commands(&cfg.interface, &cfg.finger) {
            self.writer.send(&c);
        }
    }
}
