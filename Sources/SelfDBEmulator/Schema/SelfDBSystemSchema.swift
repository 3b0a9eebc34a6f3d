/// SelfDB's own tables as v0.0.5 reports them on `/schema/visualization` (nodes with their
/// PostgreSQL columns, and the foreign keys between them), taken from a running server. The
/// emulator keeps its own state in other (SQLite) tables; an admin's schema view shows what the
/// real server would, with the app's tables added (``SchemaRoutes``).
enum SelfDBSystemSchema {
    static let json = #"""
        {
         "nodes": [
          {
           "id": "buckets",
           "label": "buckets",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "name",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "public",
             "data_type": "boolean",
             "column_default": "false",
             "is_primary_key": false
            },
            {
             "column_name": "owner_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "description",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "metadata",
             "data_type": "jsonb",
             "column_default": "'{}'::jsonb",
             "is_primary_key": false
            },
            {
             "column_name": "file_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "total_size",
             "data_type": "bigint",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "updated_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "files",
           "label": "files",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "bucket_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "name",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "path",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "size",
             "data_type": "bigint",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "mime_type",
             "data_type": "character varying",
             "column_default": "'application/octet-stream'::character varying",
             "is_primary_key": false
            },
            {
             "column_name": "owner_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "metadata",
             "data_type": "jsonb",
             "column_default": "'{}'::jsonb",
             "is_primary_key": false
            },
            {
             "column_name": "checksum_sha256",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "version",
             "data_type": "integer",
             "column_default": "1",
             "is_primary_key": false
            },
            {
             "column_name": "is_latest",
             "data_type": "boolean",
             "column_default": "true",
             "is_primary_key": false
            },
            {
             "column_name": "deleted_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "updated_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "function_executions",
           "label": "function_executions",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "function_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "user_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "trigger_type",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "webhook_delivery_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "status",
             "data_type": "character varying",
             "column_default": "'running'::character varying",
             "is_primary_key": false
            },
            {
             "column_name": "started_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "completed_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "duration_ms",
             "data_type": "integer",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "result",
             "data_type": "jsonb",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "error_message",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "updated_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "function_logs",
           "label": "function_logs",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "execution_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "function_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "log_level",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "message",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "timestamp",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "functions",
           "label": "functions",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "name",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "description",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "code",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "owner_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "is_active",
             "data_type": "boolean",
             "column_default": "true",
             "is_primary_key": false
            },
            {
             "column_name": "deployment_status",
             "data_type": "character varying",
             "column_default": "'pending'::character varying",
             "is_primary_key": false
            },
            {
             "column_name": "deployment_error",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "version",
             "data_type": "integer",
             "column_default": "1",
             "is_primary_key": false
            },
            {
             "column_name": "timeout_seconds",
             "data_type": "integer",
             "column_default": "30",
             "is_primary_key": false
            },
            {
             "column_name": "env_vars",
             "data_type": "jsonb",
             "column_default": "'{}'::jsonb",
             "is_primary_key": false
            },
            {
             "column_name": "execution_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "execution_success_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "execution_error_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "last_executed_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "avg_execution_time_ms",
             "data_type": "integer",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "last_deployed_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "updated_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "refresh_tokens",
           "label": "refresh_tokens",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "user_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "token_hash",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "expires_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "revoked_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "system_config",
           "label": "system_config",
           "columns": [
            {
             "column_name": "id",
             "data_type": "integer",
             "column_default": "1",
             "is_primary_key": true
            },
            {
             "column_name": "initialized",
             "data_type": "boolean",
             "column_default": "false",
             "is_primary_key": false
            },
            {
             "column_name": "installed_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "version",
             "data_type": "character varying",
             "column_default": "'1.0.0'::character varying",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "tables",
           "label": "tables",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": true
            },
            {
             "column_name": "name",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "table_schema",
             "data_type": "jsonb",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "public",
             "data_type": "boolean",
             "column_default": "false",
             "is_primary_key": false
            },
            {
             "column_name": "owner_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "description",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "metadata",
             "data_type": "jsonb",
             "column_default": "'{}'::jsonb",
             "is_primary_key": false
            },
            {
             "column_name": "row_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "realtime_enabled",
             "data_type": "boolean",
             "column_default": "false",
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "updated_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "users",
           "label": "users",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": true
            },
            {
             "column_name": "email",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "password",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "first_name",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "last_name",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "role",
             "data_type": "character varying",
             "column_default": "'USER'::character varying",
             "is_primary_key": false
            },
            {
             "column_name": "is_active",
             "data_type": "boolean",
             "column_default": "true",
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "webhook_deliveries",
           "label": "webhook_deliveries",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "webhook_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "function_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "source_ip",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "request_headers",
             "data_type": "jsonb",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "request_body",
             "data_type": "jsonb",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "signature_valid",
             "data_type": "boolean",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "status",
             "data_type": "character varying",
             "column_default": "'received'::character varying",
             "is_primary_key": false
            },
            {
             "column_name": "delivery_attempt",
             "data_type": "integer",
             "column_default": "1",
             "is_primary_key": false
            },
            {
             "column_name": "processing_started_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "function_execution_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "execution_result",
             "data_type": "jsonb",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "error_message",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "execution_time_ms",
             "data_type": "integer",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "response_status_code",
             "data_type": "integer",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "retry_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "next_retry_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "received_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "processing_completed_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "updated_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          },
          {
           "id": "webhooks",
           "label": "webhooks",
           "columns": [
            {
             "column_name": "id",
             "data_type": "uuid",
             "column_default": "gen_random_uuid()",
             "is_primary_key": true
            },
            {
             "column_name": "function_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "owner_id",
             "data_type": "uuid",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "name",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "description",
             "data_type": "text",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "provider",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "provider_event_type",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "webhook_token",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "secret_key",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "is_active",
             "data_type": "boolean",
             "column_default": "true",
             "is_primary_key": false
            },
            {
             "column_name": "rate_limit_per_minute",
             "data_type": "integer",
             "column_default": "100",
             "is_primary_key": false
            },
            {
             "column_name": "retry_enabled",
             "data_type": "boolean",
             "column_default": "true",
             "is_primary_key": false
            },
            {
             "column_name": "retry_attempts",
             "data_type": "integer",
             "column_default": "3",
             "is_primary_key": false
            },
            {
             "column_name": "retry_delay_seconds",
             "data_type": "integer",
             "column_default": "60",
             "is_primary_key": false
            },
            {
             "column_name": "last_received_at",
             "data_type": "timestamp with time zone",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "last_delivery_status",
             "data_type": "character varying",
             "column_default": null,
             "is_primary_key": false
            },
            {
             "column_name": "successful_delivery_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "failed_delivery_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "total_delivery_count",
             "data_type": "integer",
             "column_default": "0",
             "is_primary_key": false
            },
            {
             "column_name": "created_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            },
            {
             "column_name": "updated_at",
             "data_type": "timestamp with time zone",
             "column_default": "CURRENT_TIMESTAMP",
             "is_primary_key": false
            }
           ],
           "primary_keys": [
            "id"
           ]
          }
         ],
         "edges": [
          {
           "id": "buckets_owner_id_fkey",
           "source": "buckets",
           "target": "users",
           "source_column": "owner_id",
           "target_column": "id"
          },
          {
           "id": "files_bucket_id_fkey",
           "source": "files",
           "target": "buckets",
           "source_column": "bucket_id",
           "target_column": "id"
          },
          {
           "id": "files_owner_id_fkey",
           "source": "files",
           "target": "users",
           "source_column": "owner_id",
           "target_column": "id"
          },
          {
           "id": "function_executions_function_id_fkey",
           "source": "function_executions",
           "target": "functions",
           "source_column": "function_id",
           "target_column": "id"
          },
          {
           "id": "function_executions_user_id_fkey",
           "source": "function_executions",
           "target": "users",
           "source_column": "user_id",
           "target_column": "id"
          },
          {
           "id": "function_logs_execution_id_fkey",
           "source": "function_logs",
           "target": "function_executions",
           "source_column": "execution_id",
           "target_column": "id"
          },
          {
           "id": "function_logs_function_id_fkey",
           "source": "function_logs",
           "target": "functions",
           "source_column": "function_id",
           "target_column": "id"
          },
          {
           "id": "functions_owner_id_fkey",
           "source": "functions",
           "target": "users",
           "source_column": "owner_id",
           "target_column": "id"
          },
          {
           "id": "refresh_tokens_user_id_fkey",
           "source": "refresh_tokens",
           "target": "users",
           "source_column": "user_id",
           "target_column": "id"
          },
          {
           "id": "tables_owner_id_fkey",
           "source": "tables",
           "target": "users",
           "source_column": "owner_id",
           "target_column": "id"
          },
          {
           "id": "webhook_deliveries_function_execution_id_fkey",
           "source": "webhook_deliveries",
           "target": "function_executions",
           "source_column": "function_execution_id",
           "target_column": "id"
          },
          {
           "id": "webhook_deliveries_function_id_fkey",
           "source": "webhook_deliveries",
           "target": "functions",
           "source_column": "function_id",
           "target_column": "id"
          },
          {
           "id": "webhook_deliveries_webhook_id_fkey",
           "source": "webhook_deliveries",
           "target": "webhooks",
           "source_column": "webhook_id",
           "target_column": "id"
          },
          {
           "id": "webhooks_function_id_fkey",
           "source": "webhooks",
           "target": "functions",
           "source_column": "function_id",
           "target_column": "id"
          },
          {
           "id": "webhooks_owner_id_fkey",
           "source": "webhooks",
           "target": "users",
           "source_column": "owner_id",
           "target_column": "id"
          }
         ]
        }
        """#
}
