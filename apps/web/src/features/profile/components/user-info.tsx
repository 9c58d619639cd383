import type { Role, SessionUser } from '@uvd/contracts';
import { Alert, Card } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Skeleton } from '../../../components/skeleton.tsx';
import { useMyProfile } from '../api/my-profile.ts';

/** Each role once: the token lists roles of several sources. */
const productRoles = (user: SessionUser): Role[] => [...new Set(user.roles)];

export const UserInfo = () => {
  const { t } = useTranslation();
  const profile = useMyProfile();
  return (
    <Card as="section" className="mb-4" aria-labelledby="profile-info-heading">
      <Card.Body>
        <h2 id="profile-info-heading" className="h5 mb-3">
          {profile.data?.name ?? t('profileInfo.info')}
        </h2>
        {profile.isPending ? (
          <>
            <span className="visually-hidden" role="status">
              {t('common.loading')}
            </span>
            <Skeleton lines={6} />
          </>
        ) : profile.isError ? (
          <Alert variant="danger" className="mb-0">
            {t('profileInfo.error')}
          </Alert>
        ) : (
          <dl className="row mb-0">
            <dt className="col-sm-4">{t('profileInfo.name')}</dt>
            <dd className="col-sm-8">{profile.data.name}</dd>
            <dt className="col-sm-4">{t('profileInfo.username')}</dt>
            <dd className="col-sm-8 text-break">{profile.data.username}</dd>
            <dt className="col-sm-4">{t('profileInfo.email')}</dt>
            <dd className="col-sm-8 text-break">{profile.data.email}</dd>
            <dt className="col-sm-4">{t('profileInfo.organization')}</dt>
            <dd className="col-sm-8">{profile.data.realm}</dd>
            <dt className="col-sm-4">{t('profileInfo.groups')}</dt>
            <dd className="col-sm-8">{profile.data.groups.length > 0 ? profile.data.groups.join(', ') : t('profileInfo.noGroups')}</dd>
            <dt className="col-sm-4">{t('profileInfo.roles')}</dt>
            <dd className="col-sm-8 mb-0">
              <ul className="list-unstyled d-flex flex-wrap gap-2 mb-0">
                {productRoles(profile.data).map((role) => (
                  <li key={role} className="badge text-bg-secondary fw-normal">
                    {t(`roles.${role}`)}
                  </li>
                ))}
              </ul>
            </dd>
          </dl>
        )}
      </Card.Body>
    </Card>
  );
};
