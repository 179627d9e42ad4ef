-- Local demo data for `npm run dev`: a "demo" user with a few tasks. Idempotent: the tasks are
-- inserted only while the demo user has none. Never applied to production.
INSERT INTO users (name) VALUES ('demo') ON CONFLICT(name) DO NOTHING;
INSERT INTO tasks (user_id, title, description, priority, due_date, tags, recurrence_pattern)
SELECT u.id, s.title, s.description, s.priority, s.due_date, s.tags, s.recurrence_pattern
FROM users u, (
  SELECT 'Water the plants' AS title, 'Balcony and kitchen' AS description, 'low' AS priority,
         strftime('%Y-%m-%dT09:00:00.000Z', 'now', '+1 day') AS due_date, '["home"]' AS tags, 'weekly' AS recurrence_pattern
  UNION ALL SELECT 'Prepare quarterly report', 'Revenue, churn and hiring numbers for Q4', 'high',
         strftime('%Y-%m-%dT17:00:00.000Z', 'now', '+3 days'), '["work","finance"]', NULL
  UNION ALL SELECT 'Call mom', 'Ask about the weekend plans', 'medium',
         strftime('%Y-%m-%dT18:00:00.000Z', 'now', '-1 day'), '["family"]', NULL
  UNION ALL SELECT 'Renew passport', 'Book an appointment at the consulate', 'high', NULL, '["admin"]', NULL
  UNION ALL SELECT 'Stand-up notes', 'Write yesterday/today/blockers', 'none',
         strftime('%Y-%m-%dT08:30:00.000Z', 'now', '+1 day'), '["work"]', 'daily'
) s
WHERE u.name = 'demo' AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.user_id = u.id);
