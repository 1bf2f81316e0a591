import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A sign-in session; the token itself is never stored, only its SHA-256. */
@Entity('sessions')
export class Session {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Index('idx_sessions_token_hash', { unique: true })
  @Column({ type: 'text', name: 'token_hash' })
  tokenHash: string;

  @Index('idx_sessions_user_id')
  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt: Date;
}
