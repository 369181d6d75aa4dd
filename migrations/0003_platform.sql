-- Per-project request counters shared by every API process on one PostgreSQL (contract §13).
-- The shape is rate-limiter-flexible's RateLimiterPostgres table: `key` is the project id and
-- `expire` the end of the fixed window in epoch milliseconds. Created here rather than by the
-- library so it exists before any process serves (the library's own CREATE races between processes).
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
